/* cat_rules_data.c: report/rules/categories.rules built into the program
 * as the NUL-terminated string tp_cat_rules_builtin (the Makefile makes this
 * object depend on the rules file), so the table stays one readable data file
 * and nothing is looked up at run time. */
__asm__(".section .rodata\n"
        ".global tp_cat_rules_builtin\n"
        ".type tp_cat_rules_builtin, @object\n"
        "tp_cat_rules_builtin:\n"
        ".incbin \"report/rules/categories.rules\"\n"
        ".byte 0\n"
        ".size tp_cat_rules_builtin, . - tp_cat_rules_builtin\n"
        ".previous\n");
