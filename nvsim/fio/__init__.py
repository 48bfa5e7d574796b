"""fio, the format, at the edge: job files and fio's command line in (``jobfile``, ``writer``), its
option tables (``options``, ``names``), ``${VAR}`` and keyword expansion (``expand``), traces
(``trace``), its JSON and log files out (``json_report``, ``logs``). These read and write; they
import nothing of the simulator (``sim``, ``simulation``, ``workload``), so reading a job file
loads no solver and no Numba. ``nvsim.fio.run`` (``nvsim fio``: each job simulated) is the client
of ``Simulation`` that runs a job file; import it by name, it is not loaded here.

The reader's public names are re-exported here, as ``from nvsim.fio import X`` offered them when
this was one module.
"""

from __future__ import annotations

from .expand import expand_value, platform_keywords
from .argv import FioArguments, parse_fio_arguments
from .jobfile import (BUFFERED_NOTE, MAX_LISTED_SIZES, STRIDED_ZONE_MIN_IOS, FileOpener, FioJob, FioJobFile,
                      load_fio_jobfile, local_file, parse_fio_jobfile, read_jobfile_text, shares_one_loop)
from .json_report import FIO_PERCENTILES, fio_json_report, percentile_table
from .names import FIO_OPTION_NAMES, FIO_VERSION
from .options import (ALIASES, BLOCK_IOENGINES, FIO_DEFAULT_IOENGINE, FIO_DEFAULT_RW, FIO_RW_MODELLED, FIO_RW_TRIM,
                      HOST_IO_FLAGS, KEPT_OPTIONS, MODELLED_OPTIONS, REFUSED_DEFAULTS, REFUSED_OPTIONS,
                      UNDERSTOOD_WITHOUT_EFFECT, UNSIMULATED_IOENGINES)
from .trace import parse_trace, summarize
from .writer import command_line_to_jobfile, workload_to_fio_section

__all__ = [
    # the reader
    "FioJob", "FioJobFile", "FileOpener", "load_fio_jobfile", "parse_fio_jobfile", "read_jobfile_text", "local_file",
    "shares_one_loop", "BUFFERED_NOTE", "MAX_LISTED_SIZES", "STRIDED_ZONE_MIN_IOS",
    # the writer, and fio's command line
    "workload_to_fio_section", "command_line_to_jobfile", "parse_fio_arguments", "FioArguments",
    # option tables and names
    "ALIASES", "BLOCK_IOENGINES", "FIO_DEFAULT_IOENGINE", "FIO_DEFAULT_RW", "FIO_RW_MODELLED", "FIO_RW_TRIM", "HOST_IO_FLAGS",
    "KEPT_OPTIONS", "MODELLED_OPTIONS", "REFUSED_DEFAULTS", "REFUSED_OPTIONS", "UNDERSTOOD_WITHOUT_EFFECT",
    "UNSIMULATED_IOENGINES", "FIO_OPTION_NAMES", "FIO_VERSION",
    # expansion, traces, JSON
    "expand_value", "platform_keywords", "parse_trace", "summarize", "FIO_PERCENTILES", "fio_json_report",
    "percentile_table",
]
