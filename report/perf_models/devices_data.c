/* devices_data.c: report/perf_models/devices.table built into the program
 * as the NUL-terminated string tp_devices_builtin (the Makefile makes this
 * object depend on the table), so the peaks stay one readable data file with
 * their sources and nothing is looked up at run time. */
__asm__(".section .rodata\n"
        ".global tp_devices_builtin\n"
        ".type tp_devices_builtin, @object\n"
        "tp_devices_builtin:\n"
        ".incbin \"report/perf_models/devices.table\"\n"
        ".byte 0\n"
        ".size tp_devices_builtin, . - tp_devices_builtin\n"
        ".previous\n");
