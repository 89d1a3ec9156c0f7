/* find_rules_data.c: report/findings/findings.rules built into the program
 * as the NUL-terminated string tp_find_rules_builtin (the Makefile makes this
 * object depend on the rules file), as report/rules/cat_rules_data.c does. */
__asm__(".section .rodata\n"
        ".global tp_find_rules_builtin\n"
        ".type tp_find_rules_builtin, @object\n"
        "tp_find_rules_builtin:\n"
        ".incbin \"report/findings/findings.rules\"\n"
        ".byte 0\n"
        ".size tp_find_rules_builtin, . - tp_find_rules_builtin\n"
        ".previous\n");
