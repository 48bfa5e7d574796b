"""The options fio itself knows, so that a job file's misspelled option is refused as fio refuses it
("Bad option"), not ignored: a job file with ``io_depth=8`` ran at fio's default depth of 1.

Extracted from fio 3.42's source (github.com/axboe/fio, commit f5344384): the ``.name`` and
``.alias`` of every entry of each ``struct fio_option`` array in ``options.c``, ``engines/*.c`` and
the other source files, and the option entries of ``engines/cmdprio.h``'s macros. Engine options
(``hipri``, ``userspace_reap`` ...) are included whatever the job's ioengine; nvsim checks which
engine takes which of the options it models (``WorkloadSpec``). Regenerate by re-running that
extraction on a newer fio; the tables of ``nvsim.fio.options`` say what nvsim does with each.
"""

from __future__ import annotations

FIO_VERSION = "3.42"
"""The fio release the names were read from."""

FIO_OPTION_NAMES: frozenset[str] = frozenset("""
allow_file_create allow_mounted_write apptag apptag_mask arguments atomic ba bindname block
block_error_percentiles brick bs bs_is_seq_rand bs_unaligned bsrange bssplit buffer_compress_chunk
buffer_compress_percentage buffer_pattern buffered busy_poll bwavgtime cdb_len cgroup cgroup_nodelete
cgroup_weight chunk_size clat_percentiles clientname clocksource clustername cmd_type cmdprio
cmdprio_bssplit cmdprio_class cmdprio_hint cmdprio_percentage comm conf cont continue_on_error cpuchunks
cpuload cpumask cpumode cpus_allowed cpus_allowed_policy create_fsync create_on_open create_only
create_serialize cuda_io dataplacement deac dedupe_global dedupe_mode dedupe_percentage
dedupe_working_set_percentage description device-names dir direct directory disable_bw_measurement
disable_clat disable_lat disable_slat disk_util do_verify donorname dp_scheme dummy end_fsync end_syncfs
error_dump exec_postrun exec_prerun exit_on_io_done exit_what exitall exitall_on_error
experimental_verify fadvise_hint fallocate fdatasync fdp file_append file_service_type filename
filename_format filesize filetype fill_device fixedbufs flow flow_id flow_sleep flow_watermark
force_async fsync fsync_on_close gid gpu_dev_id gpu_dev_ids grace_time group_reporting gtod_cpu
gtod_reduce hdfs_use_direct hdfsdirectory hipri hipri_percentage hostname http_host http_mode
http_object_mode http_pass http_s3_key http_s3_keyid http_s3_region http_s3_security_token
http_s3_sse_customer_algorithm http_s3_sse_customer_key http_s3_storage_class http_swift_auth_token
http_user http_verbose https hugepage-size ignore_error ignore_zone_limits initiator inplace interface
invalidate io_size io_submit_mode iodepth iodepth_batch iodepth_batch_complete_max
iodepth_batch_complete_min iodepth_low ioengine iomem_align iopsavgtime ioscheduler job_max_open_zones
job_start_clock_id kb_base large-block-op-kbytes lat_percentiles latency_percentile latency_run
latency_target latency_window libaio_vectored libblkio_driver libblkio_force_enable_completion_eventfd
libblkio_num_entries libblkio_path libblkio_pre_connect_props libblkio_pre_start_props
libblkio_queue_size libblkio_vectored libblkio_wait_mode libblkio_write_zeroes_on_trim listen load
lockfile lockmem log_alternate_epoch log_alternate_epoch_clock_id log_avg_msec log_compression
log_compression_cpus log_entries log_hist_coarseness log_hist_msec log_issue_time log_offset log_prio
log_store_compressed log_window_value loops max_latency max_open_zones md_per_io_size mem
merge_blktrace_file merge_blktrace_iters merge_blktrace_scalars mss name namenode new_group nfs_url nice
no_completion_thread nodelay nonvectored norandommap nowait nrfiles num_range numa_cpu_nodes
numa_mem_policy number_ios numjobs numruns object_class offset offset_align offset_increment opendir
openfiles overwrite per_job_logs percentage_random percentage_sequential percentile_list pi_act pi_chk
pingpong plid_select plids pool port pre_read prep prio prioclass priohint profile program protocol
ramp_size ramp_time random_distribution random_generator random_sequence_stride randrepeat randseed rate
rate_cycle rate_ignore_thinktime rate_iops rate_iops_min rate_min rate_process rbd_encryption_format
rbd_encryption_passphrase rbdname read-req-num-512-blocks read_beyond_wp read_iolog read_iolog_chunked
read_mode readfua recover_zbd_write_error refill_buffers registerfiles replay_align replay_no_stall
replay_redirect replay_scale replay_skip replay_time_scale rocm_io runtime rw rw_sequencer rwmixcycle
rwmixread rwmixwrite scramble_buffers serialize_overlap sg_write_mode significant_figures
single-instance single_instance size skip_bad slat_percentiles softrandommap spr_cs spr_num_regions
spr_op sprandom sqthread_poll sqthread_poll_cpu startdelay stat_type stats std_redirect steadystate
steadystate_check_interval steadystate_duration steadystate_ramp_time stonewall stream_id svcl sync
sync_file_range test-duration thinkcycles thinktime thinktime_blocks thinktime_blocks_type
thinktime_iotime thinktime_spin thp thread threads threads-per-queue time_based touch_objects
trim_backlog trim_backlog_batch trim_percentage trim_verify_zero ttl uid uncached unified_rw_reporting
unique_filename unit_base unlink unlink_each_loop uri userspace_reap verb verify verify_async
verify_async_cpus verify_backlog verify_backlog_batch verify_bytchk verify_dump verify_fatal
verify_header_seed verify_interval verify_mode verify_offset verify_only verify_pattern
verify_pattern_interval verify_policy verify_state_load verify_state_save verify_write_sequence
verifysort verifysort_nr volume wait_for window_size write_barrier write_bw_log write_hint
write_hist_log write_iolog write_iops_log write_lat_log write_mode write_zone_remainder writefua
xnvme_admin xnvme_async xnvme_be xnvme_dev_nsid xnvme_dev_subnqn xnvme_iovec xnvme_mem xnvme_sync
zero_buffers zone_reset_frequency zone_reset_threshold zonecapacity zonemode zonerange zonesize zoneskip
""".split())
"""Every option name of fio 3.42 (381)."""

FIO_OPTION_ALIASES: dict[str, str] = {
    "allrandrepeat": "randrepeat",
    "blockalign": "ba",
    "blocksize": "bs",
    "blocksize_range": "bsrange",
    "blocksize_unaligned": "bs_unaligned",
    "chunck_size": "chunk_size",
    "data_placement": "dataplacement",
    "disable_bw": "disable_bw_measurement",
    "fdp_pli": "plids",
    "fdp_pli_select": "plid_select",
    "fileoffset": "offset",
    "fill_fs": "fill_device",
    "io_limit": "io_size",
    "iodepth_batch_complete": "iodepth_batch_complete_min",
    "iodepth_batch_submit": "iodepth_batch",
    "iomem": "mem",
    "log_max_value": "log_window_value",
    "log_unix_epoch": "log_alternate_epoch",
    "mem_align": "iomem_align",
    "nr_files": "nrfiles",
    "proto": "verb",
    "ratecycle": "rate_cycle",
    "ratemin": "rate_min",
    "readwrite": "rw",
    "ss": "steadystate",
    "ss_dur": "steadystate_duration",
    "ss_interval": "steadystate_check_interval",
    "ss_ramp": "steadystate_ramp_time",
    "timeout": "runtime",
    "wait_for_previous": "stonewall",
}
"""fio's option aliases: alias -> the option's name in fio's tables (30)."""

__all__ = ["FIO_VERSION", "FIO_OPTION_NAMES", "FIO_OPTION_ALIASES"]
