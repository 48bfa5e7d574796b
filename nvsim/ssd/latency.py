"""Per-I/O NAND service times with their variation: what makes a drive's latency tail.

The steady-state model (nvsim.ssd.model) prices each member I/O with its *mean* die time. The event
mode draws each one instead, from the mechanisms that spread real service times, keeping the mean:

* **tR / tPROG spread** (``NAND_SERVICE_CV``): lower, middle and upper pages of a TLC/QLC wordline
  read and program in different times; gamma-distributed around the mean with this coefficient of
  variation.
* **Program interference** (reads only): a read lands on a die that is programming with probability
  ``write_share`` (the share of die time spent programming: ``programming_share`` on saturated
  dies, the suspend time itself counting as busy die time; below saturation the array's modes take
  the share of the time the dies program at their rate, ``nvsim.sim.fluid.at_programming_load``) and then waits for the program to
  suspend and resume; the wait is exponential with mean ``suspend_unit_s`` (the suspend cost in the
  time of one pool unit). Its mean ``write_share x suspend_unit_s`` is what the fluid mode charges.
* **Erase interference** (reads only): a die writing spends part of that time erasing -- one block
  erase (tBERS) per block programmed (``WORDLINES_PER_BLOCK`` x tPROG), garbage collection's
  copies included, since they are programs like the host's. A read that finds its die busy writing
  finds it erasing with that share (``erase_share``) and waits for the erase to reach its next
  suspend point, uniform over one of the erase's ``ERASE_SUSPEND_POINTS`` steps; otherwise it waits
  for a program to suspend, exponential. The two waits together keep the suspend cost's mean, which
  is fitted as the mean die time a read loses on a writing die.
* **Read retry** (reads only): with probability ``READ_RETRY_PROBABILITY`` a read fails ECC and is
  read again with shifted reference voltages, ``READ_RETRY_EXTRA_READS`` more reads. The datasheet
  rate already includes those retries, so the first read's time is scaled down to keep the mean.

The draws are made where member I/Os are priced (nvsim.sim.demand), never inside the compiled event
kernel; the fluid mode uses the means (``mean_die_s``).
"""

from __future__ import annotations

import numpy as np

NAND_SERVICE_CV = 0.3
"""Coefficient of variation of one NAND operation's time (basis: assumed; TLC lower/middle/upper
page reads take roughly 40/60/80 us, a spread of this order). It also keeps synchronised
sequential jobs from marching over the members in a convoy forever."""

READ_RETRY_PROBABILITY = 1e-3
"""Share of page reads that fail the first ECC decode and are retried (basis: assumed; enterprise
TLC mid-life, raw bit error rates near the hard-decision LDPC limit on a small share of pages).
Sets the 99.9th-99.99th percentile of a read's NAND time, not its mean."""

READ_RETRY_EXTRA_READS = 2.0
"""Additional page reads a retried read costs (basis: assumed; one or two reads with shifted read
reference voltages before the decode succeeds)."""


WORDLINES_PER_BLOCK = 384
"""Wordlines in one erase block (basis: assumed; 3D TLC blocks hold a few hundred wordlines per plane,
e.g. 96 layers x 4 strings). A die programs a block in this many tPROG, then erases one."""

ERASE_SUSPEND_POINTS = 4
"""Steps of a block erase at which it can be suspended for a read (basis: assumed; an erase is a few
incremental-step pulses (ISPE), each followed by a verify, and suspends at a safe point at the end
of the current step, as in Wu, Huang and He, J. Systems Architecture 60(4), 2014, and Kim, Seo and
Kim, "SSR: Smart Suspend/Resume", J. KICS 50(9), 2025; neither gives a count for today's dies)."""

DEFAULT_NAND_PROGRAM_US = 1013.0
"""tPROG of one wordline on all planes for a drive that names no family (basis: published; the
1 Tbit TLC die of the ISSCC 2023 paper the KIOXIA CM7 family file cites, 194 MB/s on 4 planes)."""

DEFAULT_NAND_ERASE_US = 3500.0
"""tBERS of one block for a drive that names no family (basis: assumed; the value every family file
assumes: a few milliseconds for TLC blocks)."""


def erase_share(nand_erase_us: float, nand_program_us: float) -> float:
    """Share of a writing die's time spent erasing: one tBERS per block of ``WORDLINES_PER_BLOCK``
    programs."""
    return nand_erase_us / (nand_erase_us + WORDLINES_PER_BLOCK * nand_program_us)


def programming_share(read_s: float, write_s: float, reads: float, suspend_s: float) -> float:
    """Share of a busy die pool's time spent programming, when reads and programs share the dies
    and each read that finds its die programming adds ``suspend_s`` (program suspend and resume):
    the fixed point ``x = W / (R + W + n_r s x)``, with ``R`` and ``W`` the reads' and programs' own
    die time and ``n_r`` the reads (a count, or reads per I/O with times per I/O). It is the
    steady-state model's ``rho_w`` at its saturated rate (``nvsim.ssd.model``:
    ``X [f u_r + (1-f) u_w] + s f (1-f) X^2 u_w = 1``), so the array's modes price a mix on a drive
    as the drive model does; without suspend it is ``W / (R + W)``."""
    if write_s <= 0:
        return 0.0
    a, b = reads * suspend_s, read_s + write_s
    return 2.0 * write_s / (b + float(np.sqrt(b * b + 4.0 * a * write_s)))


def mean_die_s(die_s: np.ndarray, is_write: np.ndarray, suspend_unit_s: float, write_share: float) -> np.ndarray:
    """Each member I/O's mean unit time: reads add the expected program-suspend wait."""
    if write_share <= 0:
        return die_s
    return np.where(is_write, die_s, die_s + suspend_unit_s * write_share)


def draw_die_s(rng: np.random.Generator, die_s: np.ndarray, is_write: np.ndarray, suspend_unit_s: float,
               write_share: float, erasing: float = 0.0, erase_step_unit_s: float = 0.0) -> np.ndarray:
    """Each member I/O's unit time drawn from the mechanisms of the module docstring; the expected
    value of each is ``mean_die_s``'s. ``erasing``: the share of a writing die's time spent erasing
    (``erase_share``); ``erase_step_unit_s``: one suspendable erase step in unit time. Every draw
    after the spread is a read's, so a batch of writes alone draws no more: what ``rng`` is left at
    is not part of the answer (each batch draws from a generator of its own, ``named_rng``)."""
    n = len(die_s)
    shape = 1.0 / NAND_SERVICE_CV**2
    spread = rng.gamma(shape, 1.0 / shape, size=n)
    reads = ~is_write.astype(bool)
    if not reads.any():
        return die_s * spread
    retried = rng.random(n) < READ_RETRY_PROBABILITY
    first = 1.0 / (1.0 + READ_RETRY_PROBABILITY * READ_RETRY_EXTRA_READS)
    out = np.where(reads, die_s * spread * first * (1.0 + retried * READ_RETRY_EXTRA_READS), die_s * spread)
    if write_share > 0 and suspend_unit_s > 0:
        behind_write = rng.random(n) < write_share
        # the erase waits' part of the mean, at most all of it (then the step is shortened to fit)
        erase_mean = min(erasing * erase_step_unit_s / 2, suspend_unit_s)
        if erase_mean <= 0:  # no erase step to wait for: every wait is a program's
            erasing = 0.0
        program_mean = (suspend_unit_s - erase_mean) / (1.0 - erasing) if erasing < 1 else 0.0
        wait = rng.exponential(program_mean, size=n)
        if erase_mean > 0:  # the erasing share waits out the rest of an erase step instead
            behind_erase = rng.random(n) < erasing
            wait = np.where(behind_erase, rng.random(n) * (2 * erase_mean / erasing), wait)
        out = out + np.where(reads & behind_write, wait, 0.0)
    return out


__all__ = ["NAND_SERVICE_CV", "READ_RETRY_PROBABILITY", "READ_RETRY_EXTRA_READS", "WORDLINES_PER_BLOCK",
           "ERASE_SUSPEND_POINTS", "DEFAULT_NAND_PROGRAM_US", "DEFAULT_NAND_ERASE_US", "erase_share", "mean_die_s",
           "draw_die_s", "programming_share"]
