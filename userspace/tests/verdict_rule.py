"""The verdict rule of lib/compare.c, written again as the test oracle of
check_compare.py and check_seed.py (the one Python copy; the C engine is
the implementation):
  - the A/A row is the band, not a claim: "control";
  - a row with a failed run: "failed", no ratio;
  - fewer than min_pairs pairs here or in the A/A row: "insufficient data";
  - otherwise a verdict only for an interval clear of the two-sided band
    [min(1, lo, 1/hi), max(1, hi, 1/lo)] of the A/A interval [lo, hi],
    "faster" on the better side; "indistinguishable" inside it."""


def band(aa):
    """(down, up): the two-sided A/A band, always holding 1"""
    if not aa:
        return 1.0, 1.0
    lo, hi = aa["lo"], aa["hi"]
    return min(1.0, lo, 1.0 / hi), max(1.0, hi, 1.0 / lo)


def verdicts_at_precision(c, better, min_pairs, control=False, failed=False, half_ulp=5e-5):
    """the verdicts the engine may have given an interval published
    rounded (JSON: 4 decimals): the rule on every value within half a
    unit of the last decimal of its printed one.  One verdict unless an
    interval edge ties the band's at that precision (the engine decided
    on the unrounded values)."""
    out = {want_verdict(c, better, min_pairs, control, failed)}
    aa = c.get("aa")
    if failed or control or not aa:
        return out
    for dl in (-half_ulp, half_ulp):
        for dh in (-half_ulp, half_ulp):
            for al in (-half_ulp, half_ulp):
                for ah in (-half_ulp, half_ulp):
                    cc = dict(c, lo=c["lo"] + dl, hi=c["hi"] + dh,
                              aa=dict(aa, lo=aa["lo"] + al, hi=aa["hi"] + ah))
                    out.add(want_verdict(cc, better, min_pairs))
    return out


def aa_ok_at_precision(aa, half_ulp=5e-5):
    """the aa_ok values the engine (fl_aa_ok(): n >= 2 and lo <= 1 <= hi,
    on the unrounded interval) may have printed beside an A/A interval
    published rounded: both when an edge lies within half a unit of the
    last decimal of 1"""
    def ok(lo, hi):
        return aa["n"] >= 2 and lo <= 1.0 <= hi
    return {ok(aa["lo"] + dl, aa["hi"] + dh)
            for dl in (-half_ulp, 0.0, half_ulp) for dh in (-half_ulp, 0.0, half_ulp)}


def want_verdict(c, better, min_pairs, control=False, failed=False):
    """the verdict the engine must have given the interval c (fl_json_ci)"""
    if failed:
        return "failed"
    if control:
        return "control"
    aa = c.get("aa")
    if c["n"] < min_pairs or aa is None or aa["n"] < min_pairs:
        return "insufficient data"
    down, up = band(aa)
    if c["lo"] > up:
        return "faster" if better == "higher" else "slower"
    if c["hi"] < down:
        return "slower" if better == "higher" else "faster"
    return "indistinguishable"
