/* rocpd_schema.h: the rocpd tables the reader reads, as rocprofiler-sdk
 * documents them (schema version 3, "rocpd_<table>{{uuid}}"), written here
 * with the uuid suffix "_5e55"; the plain names are views as in a real
 * database (the reader never reads a view).  Shared by test_rocpd.c. */
#ifndef TP_TEST_ROCPD_SCHEMA_H
#define TP_TEST_ROCPD_SCHEMA_H

#define ROCPD_SCHEMA                                                                                              \
    "CREATE TABLE rocpd_metadata_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, tag TEXT NOT NULL, value TEXT);"    \
    "INSERT INTO rocpd_metadata_5e55 (tag, value) VALUES ('schema_version','3'),('uuid','_5e55');"               \
    "CREATE TABLE rocpd_string_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, string TEXT NOT NULL);"    \
    "CREATE TABLE rocpd_info_node_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, hash BIGINT,"           \
    " machine_id TEXT, hostname TEXT);"                                                                          \
    "CREATE TABLE rocpd_info_process_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"        \
    " ppid INTEGER, pid INTEGER NOT NULL, init BIGINT, fini BIGINT, start BIGINT, end BIGINT, command TEXT,"      \
    " environment JSONB DEFAULT '{}', extdata JSONB DEFAULT '{}');"                                             \
    "CREATE TABLE rocpd_info_thread_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"         \
    " ppid INTEGER, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT, start BIGINT, end BIGINT,"             \
    " extdata JSONB DEFAULT '{}');"                                                                             \
    "CREATE TABLE rocpd_info_agent_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"          \
    " pid INTEGER, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER,"  \
    " name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT,"                          \
    " extdata JSONB DEFAULT '{}');"                                                                             \
    "CREATE TABLE rocpd_info_kernel_symbol_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"  \
    " pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT, kernel_object INTEGER,"         \
    " extdata JSONB DEFAULT '{}');"                                                                             \
    "CREATE TABLE rocpd_event_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, category_id INTEGER,"       \
    " stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB DEFAULT '{}',"        \
    " line_info JSONB DEFAULT '{}', extdata JSONB DEFAULT '{}');"                                               \
    "CREATE TABLE rocpd_region_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"              \
    " pid INTEGER NOT NULL, tid INTEGER NOT NULL, start BIGINT NOT NULL, end BIGINT NOT NULL,"                   \
    " name_id INTEGER NOT NULL, event_id INTEGER, extdata JSONB DEFAULT '{}');"                                 \
    "CREATE TABLE rocpd_kernel_dispatch_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"     \
    " pid INTEGER NOT NULL, tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL,"                 \
    " dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, start BIGINT NOT NULL," \
    " end BIGINT NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER,"                           \
    " workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER,"       \
    " grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id INTEGER,"                      \
    " extdata JSONB DEFAULT '{}');"                                                                             \
    "CREATE TABLE rocpd_memory_copy_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, nid INTEGER,"         \
    " pid INTEGER NOT NULL, tid INTEGER, start BIGINT NOT NULL, end BIGINT NOT NULL, name_id INTEGER NOT NULL,"  \
    " dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, size INTEGER,"      \
    " queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, event_id INTEGER,"                           \
    " extdata JSONB DEFAULT '{}');"                                                                             \
    "CREATE TABLE rocpd_sample_5e55 (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, track_id INTEGER,"         \
    " timestamp BIGINT, event_id INTEGER, extdata JSONB DEFAULT '{}');"                                         \
    "CREATE VIEW rocpd_region AS SELECT * FROM rocpd_region_5e55;"                                               \
    "CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM rocpd_kernel_dispatch_5e55;"

/* One process (pid 4242) with two threads and two GPUs: two kernels and a
 * copy launched by HIP calls (correlation ids 11, 12, 13; an HSA call inside
 * the first shares its id and is not the launch), a ROCTx range
 * named like a step, a dispatch with its end before its start (dropped,
 * counted), a sample row (a table not read: counted). */
#define ROCPD_ROWS                                                                                                \
    "INSERT INTO rocpd_string_5e55 (id, string) VALUES (1,'hipLaunchKernel'),(2,'HIP_RUNTIME_API'),"              \
    " (3,'hipMemcpyAsync'),(4,'MARKER_CORE_API'),(5,'step 7'),(6,'MEMORY_COPY_HOST_TO_DEVICE'),"                  \
    " (7,'KERNEL_DISPATCH'),(8,'MEMORY_COPY'),(9,'hsa_queue_store_write_index'),(10,'HSA_CORE_API');"                                                                   \
    "INSERT INTO rocpd_info_process_5e55 (id, nid, pid, command) VALUES (1,1,4242,'python train.py');"            \
    "INSERT INTO rocpd_info_thread_5e55 (id, nid, pid, tid, name) VALUES (1,1,1,4242,'python'),"                  \
    " (2,1,1,4250,'worker');"                                                                                    \
    "INSERT INTO rocpd_info_agent_5e55 (id, nid, pid, type, absolute_index, logical_index, type_index, name,"     \
    " vendor_name, product_name, extdata) VALUES (1,1,1,'CPU',0,0,0,'EPYC','AMD','AMD EPYC 9654','{}'),"         \
    " (2,1,1,'GPU',1,1,0,'gfx942','AMD','AMD Instinct MI300X','{\"cu_count\":304}'),"                           \
    " (3,1,1,'GPU',2,2,1,'gfx942','AMD','AMD Instinct MI300X','{\"cu_count\":304}');"                           \
    "INSERT INTO rocpd_info_kernel_symbol_5e55 (id, nid, pid, code_object_id, kernel_name, display_name)"         \
    " VALUES (1,1,1,1,'_Z11gemm_kernelv','gemm_kernel()'),(2,1,1,1,'Cijk_Alik_Bljk',NULL);"                      \
    "INSERT INTO rocpd_event_5e55 (id, category_id, correlation_id) VALUES (1,2,11),(2,2,12),(3,2,13),(4,4,0),"   \
    " (5,7,11),(6,7,12),(7,8,13),(8,7,14),(9,10,11);"                                                                       \
    "INSERT INTO rocpd_region_5e55 (nid, pid, tid, start, end, name_id, event_id) VALUES (1,1,1,1000,1100,1,1),"  \
    " (1,1,2,2000,2100,1,2),(1,1,1,3000,3100,3,3),(1,1,1,500,9000,5,4),(1,1,1,1010,1020,9,9);"                                         \
    "INSERT INTO rocpd_kernel_dispatch_5e55 (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,"          \
    " stream_id, start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y,"      \
    " workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES"                                 \
    " (1,1,1,2,1,1,1,0,1200,1700,0,4096,256,1,1,1024,1,1,5),(1,1,2,3,2,2,2,3,2200,2950,0,0,64,1,1,64,1,1,6),"    \
    " (1,1,2,3,2,3,2,3,5000,4000,0,0,64,1,1,64,1,1,8);"                                                          \
    "INSERT INTO rocpd_memory_copy_5e55 (nid, pid, tid, start, end, name_id, dst_agent_id, src_agent_id, size,"  \
    " queue_id, stream_id, event_id) VALUES (1,1,1,3200,3400,6,2,1,4096,NULL,0,7);"                              \
    "INSERT INTO rocpd_sample_5e55 (track_id, timestamp) VALUES (1, 100);"

#endif
