/* nsys_schema.h: the tables of an Nsight Systems export the reader reads
 * (a 2023 export's columns, and a few more), for databases the tests build
 * with the sqlite3 shell.  Shared by test_nsys.c and test_device_only.c. */
#ifndef TP_TEST_NSYS_SCHEMA_H
#define TP_TEST_NSYS_SCHEMA_H

/* The schema of a 2023 export, the columns the reader reads (and a few more) */
#define NSYS_SCHEMA                                                                                               \
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"                              \
    "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);"                                             \
    "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3'),('EXPORT_SCHEMA_VERSION_MINOR','11');" \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,"  \
    " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);"           \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"    \
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"      \
    " shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,"             \
    " blockZ INTEGER);"                                                                                           \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"    \
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,"              \
    " copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);"                                                       \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"    \
    " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER,"              \
    " bytes INTEGER);"                                                                                            \
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,"       \
    " globalTid INTEGER, textId INTEGER, domainId INTEGER);"                                                     \
    "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,"                  \
    " computeMajor INTEGER, computeMinor INTEGER, memoryBandwidth INTEGER, clockRate INTEGER);"

/* GlobalIds: pid 100 and 200 (pid << 24 | tid), globalPid = pid << 24 */
#define G100 "1677721700"  /* 100 << 24 | 100 */
#define G200 "3355443400"  /* 200 << 24 | 200 */
#define P100 "1677721600"
#define P200 "3355443200"

#endif
