/* job_rules_data.c: report/job/job_findings.rules built into the program as
 * the NUL-terminated string tp_job_rules_builtin (the Makefile makes this
 * object depend on the rules file), as report/findings/find_rules_data.c
 * does for the trace's rules. */
__asm__(".section .rodata\n"
        ".global tp_job_rules_builtin\n"
        ".type tp_job_rules_builtin, @object\n"
        "tp_job_rules_builtin:\n"
        ".incbin \"report/job/job_findings.rules\"\n"
        ".byte 0\n"
        ".size tp_job_rules_builtin, . - tp_job_rules_builtin\n"
        ".previous\n");
