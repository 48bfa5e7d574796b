"""Planner: md's rmw/rcw choices, and real bytes stay consistent when its plans are executed.

``MemArray`` is an executor over real bytes: it performs a plan's reads, computes new data and
parity *only from what the plan read* (plus the host's new bytes), performs the plan's writes,
and then checks every stripe: data equal to a reference copy, parity consistent (optimal), or
the lost members reconstructible to the reference (degraded). A plan that reads too little
cannot be executed; one that writes too little leaves a stripe inconsistent.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim import parity
from nvsim.stripe.layout import (
    PAGE_BYTES,
    PARITY_LAYOUTS,
    ArrayGeometry,
    data_members,
    map_logical_copies,
    parity_members,
    syndrome_members,
    unmap_member,
)
from nvsim.stripe.planner import Mode, plan_ios

KIB = 1024


class PlanError(AssertionError):
    pass


class MemArray:
    def __init__(self, geom: ArrayGeometry, failed, seed: int):
        self.g = g = geom
        self.failed = set(failed)
        rng = np.random.default_rng(seed)
        self.msize = g.member_size_bytes
        self.ref = rng.integers(0, 256, size=g.capacity_bytes, dtype=np.uint8)
        self.mem = np.zeros((g.n_members, self.msize), dtype=np.uint8)
        used = g.strips_per_member * g.strip_bytes if g.level != 1 else g.capacity_bytes
        mm, oo = np.meshgrid(np.arange(g.n_members), np.arange(used), indexing="ij")
        back = unmap_member(g, mm.ravel(), oo.ravel()).reshape(mm.shape)
        back[back >= g.capacity_bytes] = -2  # RAID10 odd tail: a copy slot past the usable size
        self.back = back  # member byte -> logical byte (-1 parity)
        data_pos = back >= 0
        self.mem[:, :used][data_pos] = self.ref[back[data_pos]]
        if g.level in (5, 6):
            for s in range(g.strips_per_member):
                self._write_parity_from_data(s)
        for m in self.failed:
            self.mem[m] = 0xEE  # lost: any use of it would corrupt results

    # --- RAID5/6 helpers
    def _rows(self, s, r0=0, r1=None):
        sl = slice(s * self.g.strip_bytes + r0 * PAGE_BYTES,
                   s * self.g.strip_bytes + (r1 if r1 is not None else self.g.strip_bytes // PAGE_BYTES) * PAGE_BYTES)
        return sl

    def _write_parity_from_data(self, s):
        g = self.g
        sl = self._rows(s)
        syn = syndrome_members(g, [s])[0]
        p, q = parity_members(g, [s])
        pq = parity.gen_pq(self.mem[syn, sl])
        self.mem[p[0], sl] = pq[0]
        if g.level == 6:
            self.mem[q[0], sl] = pq[1]

    def stripe_order(self, s):
        """Rows in recover() order: data in syndrome order, then P (and Q)."""
        g = self.g
        syn = list(syndrome_members(g, [s])[0])
        p, q = parity_members(g, [s])
        return syn + [int(p[0])] + ([int(q[0])] if g.level == 6 else [])

    def check_consistent(self):
        g = self.g
        used = self.back.shape[1]
        if g.level in (5, 6):
            for s in range(g.strips_per_member):
                order = self.stripe_order(s)
                block = self.mem[order, self._rows(s)]
                lost = [i for i, m in enumerate(order) if m in self.failed]
                full = parity.recover(block, lost, g.level) if lost else block
                if not lost:
                    assert np.array_equal(parity.gen_pq(full[:g.data_members_per_stripe])[:g.n_parity],
                                          full[g.data_members_per_stripe:]), f"stripe {s} parity inconsistent"
                for i, m in enumerate(order[:g.data_members_per_stripe]):
                    logical = self.back[m, self._rows(s)]
                    assert np.array_equal(full[i], self.ref[logical]), f"stripe {s} member {m} data wrong"
        else:
            for m in range(g.n_members):
                if m in self.failed:
                    continue
                pos = self.back[m] >= 0
                assert np.array_equal(self.mem[m, :used][pos], self.ref[self.back[m][pos]]), f"member {m}"

    # --- execution
    def execute(self, plan, h, is_write, off, length, new):
        g = self.g
        ios = plan.for_host(h)
        mode = Mode(int(plan.mode[h]))
        if mode == Mode.DATA_LOSS:
            assert len(ios["member"]) == 0
            return mode
        for m in ios["member"]:
            assert int(m) not in self.failed, "plan touches a failed member"
        reads = [(int(m), int(o), int(n)) for m, o, n, w in
                 zip(ios["member"], ios["member_offset_bytes"], ios["length_bytes"], ios["is_write"]) if not w]
        writes = [(int(m), int(o), int(n), int(ph)) for m, o, n, w, ph in
                  zip(ios["member"], ios["member_offset_bytes"], ios["length_bytes"], ios["is_write"], ios["phase"]) if w]
        assert all(ph == 1 for *_, ph in writes), "writes are final-phase I/Os"
        known = np.zeros_like(self.mem, dtype=bool)
        for m, o, n in reads:
            known[m, o:o + n] = True
        if g.level not in (5, 6):
            return self._exec_mirror(mode, reads, writes, is_write, off, length, new)
        if not is_write:
            got = self._assemble_read(known, off, length)
            assert np.array_equal(got, self.ref[off:off + length]), "read returned wrong bytes"
            return mode
        # what each touched (stripe, row) must become, computed only from known bytes
        old_ref = self.ref.copy()
        self.ref[off:off + length] = new
        desired = {}  # (member, page_offset) -> 4 KiB page
        SD = g.stripe_data_bytes
        R = g.strip_bytes // PAGE_BYTES
        k = g.data_members_per_stripe
        for s in range(off // SD, (off + length - 1) // SD + 1):
            dm = data_members(g, [s])[0]
            order = self.stripe_order(s)
            syn = order[:k]
            for r in range(R):
                page_off = s * g.strip_bytes + r * PAGE_BYTES
                sl = slice(page_off, page_off + PAGE_BYTES)
                logical_start = [s * SD + dd * g.strip_bytes + r * PAGE_BYTES for dd in range(k)]
                written = [max(off, ls) < min(off + length, ls + PAGE_BYTES) for ls in logical_start]
                if not any(written):
                    continue
                over = [max(off, ls) == ls and min(off + length, ls + PAGE_BYTES) == ls + PAGE_BYTES
                        for ls in logical_start]
                kn = {m: bool(known[m, sl].all()) for m in range(g.n_members)}
                old = {m: self.mem[m, sl].copy() for m in range(g.n_members) if kn[m]}
                slot = {int(m): i for i, m in enumerate(syn)}
                p_m = order[k]
                q_m = order[k + 1] if g.level == 6 else None

                need_old = [dd for dd in range(k) if not over[dd]]
                new_data = {}
                if all(kn[int(dm[dd])] for dd in need_old):  # reconstruct-write / full stripe
                    for dd in range(k):
                        m = int(dm[dd])
                        new_data[m] = self.ref[logical_start[dd]:logical_start[dd] + PAGE_BYTES].copy() \
                            if over[dd] or written[dd] else old[m]
                        if written[dd] and not over[dd]:
                            new_data[m] = self._overlay(old[m], logical_start[dd], off, length, old_ref)
                    pq = parity.gen_pq(np.stack([new_data[int(m)] for m in syn]))
                    newp, newq = pq[0], pq[1]
                elif all(kn[int(dm[dd])] for dd in range(k) if written[dd]) and kn[p_m] and \
                        (q_m is None or kn[q_m]):  # read-modify-write from old data + old parity
                    newp, newq = old[p_m].copy(), (old[q_m].copy() if q_m is not None else None)
                    for dd in range(k):
                        if not written[dd]:
                            continue
                        m = int(dm[dd])
                        nd = self._overlay(old[m], logical_start[dd], off, length, old_ref)
                        new_data[m] = nd
                        delta = nd ^ old[m]
                        newp ^= delta
                        if q_m is not None:
                            newq ^= parity.GF_MUL[parity.gf_pow2(slot[m])][delta]
                else:  # rebuild the lost members from everything that survives, then rcw
                    survivors_known = all(kn[m] for m in range(g.n_members) if m not in self.failed)
                    if not survivors_known:
                        raise PlanError(f"plan read too little for stripe {s} row {r}")
                    block = np.stack([old[m] if m in old else np.zeros(PAGE_BYTES, np.uint8) for m in order])
                    lost = [i for i, m in enumerate(order) if m in self.failed]
                    full = parity.recover(block, lost, g.level)
                    for dd in range(k):
                        m = int(dm[dd])
                        oldm = full[order.index(m)]
                        new_data[m] = self._overlay(oldm, logical_start[dd], off, length, old_ref) \
                            if written[dd] else oldm
                    pq = parity.gen_pq(np.stack([new_data[int(m)] for m in syn]))
                    newp, newq = pq[0], pq[1]
                for dd in range(k):
                    if written[dd]:
                        desired[(int(dm[dd]), page_off)] = new_data[int(dm[dd])]
                desired[(p_m, page_off)] = newp
                if q_m is not None:
                    desired[(q_m, page_off)] = newq
        for m, o, n, _ in writes:
            assert o % PAGE_BYTES == 0 and n % PAGE_BYTES == 0, "stripe-cache writes are whole pages"
            for po in range(o, o + n, PAGE_BYTES):
                if (m, po) not in desired:
                    raise PlanError(f"plan writes member {m} page {po} that this host I/O does not change")
                self.mem[m, po:po + PAGE_BYTES] = desired.pop((m, po))
        missing = [key for key in desired if key[0] not in self.failed]
        if missing:
            raise PlanError(f"plan misses writes to {missing[:3]}")
        return mode

    def _overlay(self, old_page, ls, off, length, old_ref=None):
        """old page with the host's new bytes (already in self.ref) laid over the written part."""
        page = old_page.copy()
        lo = max(off, ls)
        hi = min(off + length, ls + PAGE_BYTES)
        if lo < hi:
            page[lo - ls:hi - ls] = self.ref[lo:hi]
        return page

    def _assemble_read(self, known, off, length):
        g = self.g
        out = np.empty(length, dtype=np.uint8)
        SD = g.stripe_data_bytes
        k = g.data_members_per_stripe
        for s in range(off // SD, (off + length - 1) // SD + 1):
            dm = data_members(g, [s])[0]
            order = self.stripe_order(s)
            for dd in range(k):
                ls = s * SD + dd * g.strip_bytes
                lo, hi = max(off, ls), min(off + length, ls + g.strip_bytes)
                if lo >= hi:
                    continue
                m = int(dm[dd])
                mo = s * g.strip_bytes + lo - ls
                if m not in self.failed:
                    if not known[m, mo:mo + hi - lo].all():
                        raise PlanError("read did not fetch requested bytes")
                    out[lo - off:hi - off] = self.mem[m, mo:mo + hi - lo]
                    continue
                # rebuild the pages of the failed member from every survivor's same pages
                p0 = (mo // PAGE_BYTES) * PAGE_BYTES
                p1 = -(-(mo + hi - lo) // PAGE_BYTES) * PAGE_BYTES
                surv = [x for x in order if x not in self.failed]
                if not all(known[x, p0:p1].all() for x in surv):
                    raise PlanError("degraded read did not fetch the survivors")
                block = np.stack([self.mem[x, p0:p1] if x not in self.failed else np.zeros(p1 - p0, np.uint8)
                                  for x in order])
                lost = [i for i, x in enumerate(order) if x in self.failed]
                full = parity.recover(block, lost, g.level)
                row = full[order.index(m)]
                out[lo - off:hi - off] = row[mo - p0:mo - p0 + hi - lo]
        return out

    def _exec_mirror(self, mode, reads, writes, is_write, off, length, new):
        g = self.g
        if is_write:
            self.ref[off:off + length] = new
            covered = np.zeros(length, dtype=np.int64)
            for m, o, n, _ in writes:
                logical = unmap_member(g, m, np.arange(o, o + n))
                assert logical.min() >= off and logical.max() < off + length
                self.mem[m, o:o + n] = self.ref[logical]
                covered[logical - off] += 1
            ms, _ = map_logical_copies(g, np.arange(off, off + length))
            alive = (~np.isin(ms, list(self.failed))).sum(axis=1)
            assert np.array_equal(covered, alive), "each live copy written exactly once"
        else:
            covered = np.zeros(length, dtype=np.int64)
            for m, o, n in reads:
                logical = unmap_member(g, m, np.arange(o, o + n))
                assert np.array_equal(self.mem[m, o:o + n], self.ref[logical])
                covered[logical - off] += 1
            assert np.all(covered == 1), "each requested byte read exactly once"
        return mode


# ----------------------------------------------------------------------------- md's choices


def _summary(plan, h=0):
    io = plan.for_host(h)
    reads = sorted(int(m) for m, w in zip(io["member"], io["is_write"]) if not w)
    writes = sorted(int(m) for m, w in zip(io["member"], io["is_write"]) if w)
    return Mode(int(plan.mode[h])), reads, writes


def test_small_write_on_wide_raid6_is_read_modify_write():
    g = ArrayGeometry(6, 24, 64 * KIB, member_size_bytes=64 * KIB * 4)
    mode, reads, writes = _summary(plan_ios(g, True, [0], [4 * KIB]))
    p, q = parity_members(g, [0])
    d0 = int(data_members(g, [0])[0][0])
    assert mode == Mode.READ_MODIFY_WRITE
    assert reads == sorted([d0, int(p[0]), int(q[0])]) == writes
    assert plan_ios(g, True, [0], [4 * KIB]).parity_bytes_computed[0] == 2 * 4 * KIB


def test_tie_goes_to_reconstruct_write_as_in_md():
    # 3-member RAID5, one page: rmw reads data+P (2), rcw reads the other data (1) -> rcw
    g = ArrayGeometry(5, 3, 64 * KIB, member_size_bytes=64 * KIB * 4)
    assert _summary(plan_ios(g, True, [0], [4 * KIB]))[0] == Mode.RECONSTRUCT_WRITE
    # 4-member RAID5: rmw 2 reads, rcw 2 reads: tie -> rcw (PARITY_ENABLE_RMW)
    g4 = ArrayGeometry(5, 4, 64 * KIB, member_size_bytes=64 * KIB * 4)
    mode, reads, _ = _summary(plan_ios(g4, True, [0], [4 * KIB]))
    assert mode == Mode.RECONSTRUCT_WRITE and len(reads) == 2
    # 5-member RAID5: rmw 2 < rcw 3 -> rmw
    g5 = ArrayGeometry(5, 5, 64 * KIB, member_size_bytes=64 * KIB * 4)
    assert _summary(plan_ios(g5, True, [0], [4 * KIB]))[0] == Mode.READ_MODIFY_WRITE


def test_full_stripe_write_reads_nothing():
    g = ArrayGeometry(6, 6, 64 * KIB, member_size_bytes=64 * KIB * 4)
    plan = plan_ios(g, True, [g.stripe_data_bytes], [g.stripe_data_bytes])
    mode, reads, writes = _summary(plan)
    assert mode == Mode.FULL_STRIPE_WRITE and reads == [] and writes == list(range(6))
    assert np.all(plan.length_bytes == 64 * KIB)  # the 16 page rows merged per member
    assert plan.stripes_touched[0] == 1


def test_partial_page_write_reads_the_page():
    g = ArrayGeometry(6, 24, 64 * KIB, member_size_bytes=64 * KIB * 4)
    io = plan_ios(g, True, [100], [200]).for_host(0)
    assert set(io["length_bytes"].tolist()) == {4 * KIB}
    assert (~io["is_write"]).sum() == 3  # rmw: old data page + P + Q


def test_degraded_read_of_a_failed_member_reads_all_survivors():
    g = ArrayGeometry(6, 8, 64 * KIB, member_size_bytes=64 * KIB * 4)
    d0 = int(data_members(g, [0])[0][0])
    plan = plan_ios(g, False, [0, 4 * KIB + 64 * KIB], [8 * KIB, 100], failed_members=[d0])
    assert Mode(int(plan.mode[0])) == Mode.DEGRADED_READ
    assert sorted(plan.for_host(0)["member"].tolist()) == [m for m in range(8) if m != d0]
    assert plan.parity_bytes_computed[0] == 8 * KIB
    assert Mode(int(plan.mode[1])) == Mode.READ  # another member: one page read
    assert plan.for_host(1)["length_bytes"].tolist() == [4 * KIB]


def test_too_many_failures_is_data_loss_without_exception():
    g = ArrayGeometry(5, 4, 64 * KIB, member_size_bytes=64 * KIB * 4)
    plan = plan_ios(g, [True, False], [0, 0], [4096, 4096], failed_members=[0, 1])
    assert plan.mode.tolist() == [Mode.DATA_LOSS, Mode.DATA_LOSS] and plan.n_member_ios == 0
    g10 = ArrayGeometry(10, 4, 64 * KIB, member_size_bytes=64 * KIB * 4)
    plan = plan_ios(g10, [True, True], [0, 64 * KIB], [4096, 4096], failed_members=[0, 1])
    assert plan.mode.tolist() == [Mode.DATA_LOSS, Mode.MIRROR_WRITE]


def test_rejects_out_of_range():
    g = ArrayGeometry(5, 4, 64 * KIB, member_size_bytes=64 * KIB * 4)
    with pytest.raises(ValueError, match="offset_bytes"):
        plan_ios(g, True, [g.capacity_bytes - 4096], [8192])
    with pytest.raises(ValueError, match="length_bytes"):
        plan_ios(g, True, [0], [0])
    with pytest.raises(ValueError, match="failed_members"):
        plan_ios(g, True, [0], [4096], failed_members=[9])


# ----------------------------------------------------------------------------- real bytes


def _geometry(level, n, strip_pages, layout, copies):
    strip = strip_pages * PAGE_BYTES
    if level in (5, 6):
        return ArrayGeometry(level, n, strip, layout=layout, member_size_bytes=strip * 3)
    if level == 10:
        return ArrayGeometry(10, n, strip, copies=min(copies, n), member_size_bytes=strip * 3)
    if level == 0:
        return ArrayGeometry(0, n, strip, member_size_bytes=strip * 3)
    return ArrayGeometry(1, n, member_size_bytes=strip * 3)


@st.composite
def scenarios(draw):
    level = draw(st.sampled_from([5, 6, 6, 5, 0, 1, 10]))
    n = draw(st.integers({5: 3, 6: 4, 0: 1, 1: 2, 10: 2}[level], 7))
    g = _geometry(level, n, draw(st.integers(1, 3)), draw(st.sampled_from(PARITY_LAYOUTS)), draw(st.integers(2, 3)))
    n_fail = draw(st.integers(0, g.failures_tolerated if level != 10 else 1))
    failed = draw(st.lists(st.integers(0, n - 1), min_size=n_fail, max_size=n_fail, unique=True))
    ios = []
    for _ in range(draw(st.integers(1, 6))):
        aligned = draw(st.booleans())
        if aligned:
            off = draw(st.integers(0, g.capacity_bytes // PAGE_BYTES - 1)) * PAGE_BYTES
            ln = draw(st.integers(1, min(3 * g.stripe_data_bytes, g.capacity_bytes - off) // PAGE_BYTES)) * PAGE_BYTES
        else:
            off = draw(st.integers(0, g.capacity_bytes - 1))
            ln = draw(st.integers(1, min(2 * g.stripe_data_bytes + 5000, g.capacity_bytes - off)))
        ios.append((draw(st.booleans()), off, ln))
    return g, failed, ios, draw(st.integers(0, 2**32 - 1))


@given(scenarios())
@settings(max_examples=120, deadline=None)
def test_plans_keep_real_bytes_consistent(scenario):
    g, failed, ios, seed = scenario
    arr = MemArray(g, failed, seed)
    rng = np.random.default_rng(seed + 1)
    for w, off, ln in ios:  # one at a time: each write sees the previous ones
        plan = plan_ios(g, [w], [off], [ln], failed_members=failed)
        assert plan.stripes_touched[0] >= 1
        new = rng.integers(0, 256, size=ln, dtype=np.uint8)
        mode = arr.execute(plan, 0, w, off, ln, new)
        assert mode != Mode.DATA_LOSS or g.level == 10
        if mode == Mode.DATA_LOSS:
            continue
        if not w and g.level in (5, 6) and not failed:
            assert plan.length_bytes.sum() == ln  # optimal reads: byte counts conserved
        if w and g.level in (5, 6):
            wr = plan.is_write
            data_writes = sum(PAGE_BYTES * int((unmap_member(g, m, np.arange(o, o + n, PAGE_BYTES)) >= 0).sum())
                              for m, o, n in zip(plan.member[wr], plan.member_offset_bytes[wr], plan.length_bytes[wr]))
            first = off // PAGE_BYTES * PAGE_BYTES
            last = -(-(off + ln) // PAGE_BYTES) * PAGE_BYTES
            if not failed:  # data written = host bytes rounded out to pages
                assert data_writes == last - first
        arr.check_consistent()


@pytest.mark.parametrize("level,n", [(5, 5), (6, 7)])
def test_batched_plan_equals_one_by_one(level, n):
    g = ArrayGeometry(level, n, 16 * KIB, member_size_bytes=16 * KIB * 8)
    rng = np.random.default_rng(5)
    N = 200
    offs = rng.integers(0, g.capacity_bytes - 64 * KIB, N)
    lens = rng.integers(1, 64 * KIB, N)
    isw = rng.random(N) < 0.6
    batch = plan_ios(g, isw, offs, lens, failed_members=[1])
    for h in [0, 17, 99, 199]:
        one = plan_ios(g, isw[h:h + 1], offs[h:h + 1], lens[h:h + 1], failed_members=[1])
        got = batch.for_host(h)
        for key, val in one.for_host(0).items():
            assert np.array_equal(got[key], val)
        assert batch.mode[h] == one.mode[0]
        assert batch.parity_bytes_computed[h] == one.parity_bytes_computed[0]


def test_a_level_compiles_only_its_familys_planner():
    """RAID5/6 and RAID0/1/10 plan through compiled entries of their own (``_plan_parity``,
    ``_plan_copies``): a process that plans one family never compiles (or loads) the other's steps."""
    import subprocess
    import sys

    probe = (
        "import numpy as np\n"
        "from nvsim.numba_cache import use_source_keyed_cache\n"
        "use_source_keyed_cache()\n"
        "from nvsim.stripe import planner as p\n"
        "from nvsim.stripe.layout import ArrayGeometry\n"
        "p.plan_ios(ArrayGeometry(6, 8, 65536), True, np.arange(4) * 4096, 4096)\n"
        "print(len(p._plan_parity.signatures), len(p._plan_copies.signatures), len(p._copy_hosts.signatures))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0", "0"]
