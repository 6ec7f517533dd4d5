"""Reproducibility measures (Breuer et al. 2020): hand-computed values, edge cases, reader and command."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.scoring import reproducibility as rp
from pyfn.cli.compare_runs import add_parser
from pyfn.scoring.runs_io import read_runs
from pyfn.scoring.stats import holm

# Original run: 3 systems on 4 sentences. Means: A 0.65, B 0.5, C 0.3.
ORIG = {
    "A": {"t1": 0.5, "t2": 0.6, "t3": 0.7, "t4": 0.8},
    "B": {"t1": 0.4, "t2": 0.5, "t3": 0.5, "t4": 0.6},
    "C": {"t1": 0.3, "t2": 0.2, "t3": 0.4, "t4": 0.3},
}
# Reproduced run. Means: A 0.65, B 0.45, C 0.3125.
REP = {
    "A": {"t1": 0.6, "t2": 0.6, "t3": 0.6, "t4": 0.8},
    "B": {"t1": 0.4, "t2": 0.4, "t3": 0.5, "t4": 0.5},
    "C": {"t1": 0.45, "t2": 0.2, "t3": 0.3, "t4": 0.3},
}


# ------------------------------------------------------------------ Kendall's tau and KTU


def test_kendall_tau_b_hand_computed_with_ties() -> None:
    # pairs: (A,B) tied in a only, (A,C) concordant, (B,C) tied in b only
    # tau_b = (P - Q) / sqrt((P+Q+U)(P+Q+V)) = 1 / sqrt(2 * 2) = 0.5
    assert rp.kendall_tau_b({"A": 1, "B": 1, "C": 0}, {"A": 1, "B": 0, "C": 0}) == pytest.approx(0.5)


def test_kendall_tau_identical_reversed_constant_and_too_few() -> None:
    a = {"A": 3.0, "B": 2.0, "C": 1.0}
    assert rp.kendall_tau_b(a, a) == pytest.approx(1.0)
    assert rp.kendall_tau_b(a, {"A": 1.0, "B": 2.0, "C": 3.0}) == pytest.approx(-1.0)
    assert math.isnan(rp.kendall_tau_b(a, {"A": 1.0, "B": 1.0, "C": 1.0}))  # every system tied: undefined
    assert rp.kendall_tau_b(a, {"A": 2.0, "B": 1.0, "Z": 9.0}) == pytest.approx(1.0)  # only A, B in common
    with pytest.raises(PyfnError, match="at least 2 systems"):
        rp.kendall_tau_b(a, {"A": 1.0, "Z": 2.0})


def test_ktu_union_puts_missing_items_at_the_bottom() -> None:
    # union {A,B,C,D}; a: A3 B2 C1 D-inf, b: A3 B2 C-inf D1
    # only (C,D) is discordant: (5 - 1) / 6 = 2/3
    assert rp.ktu({"A": 3, "B": 2, "C": 1}, {"A": 3, "B": 2, "D": 1}) == pytest.approx(2 / 3)
    assert rp.ktu({"A": 3, "B": 2, "C": 1}, {"A": 1, "B": 2, "C": 3}) == pytest.approx(-1.0)
    with pytest.raises(PyfnError, match="at least 2 systems"):
        rp.ktu({"A": 1.0}, {"A": 2.0})


def test_ktu_reference_reproduces_the_label_dependence_of_repro_eval() -> None:
    # union sorted a,b,c -> indices a0 b1 c2; [b,a,c] -> [1,0,2], its reverse [c,a,b] -> [2,0,1]
    # position pairs (0,1) concordant, (0,2) discordant, (1,2) concordant: (2 - 1) / 3 = 1/3
    assert rp.ktu_reference(["b", "a", "c"], ["c", "a", "b"]) == pytest.approx(1 / 3)
    assert rp.ktu({"b": 3, "a": 2, "c": 1}, {"c": 3, "a": 2, "b": 1}) == pytest.approx(-1.0)
    # when one order is alphabetical both agree
    assert rp.ktu_reference(["a", "b", "c"], ["a", "c", "b"]) == pytest.approx(1 / 3)
    assert rp.ktu({"a": 3, "b": 2, "c": 1}, {"a": 3, "c": 2, "b": 1}) == pytest.approx(1 / 3)
    with pytest.raises(UsageError):
        rp.ktu_reference(["a"], ["a", "b"])


def test_ranked_breaks_ties_by_decreasing_name() -> None:
    assert rp.ranked({"a": 1.0, "c": 1.0, "b": 2.0}) == ["b", "c", "a"]


# ------------------------------------------------------------------ RBO


def test_rbo_ext_hand_computed_equal_length() -> None:
    # X_1 = 0, X_2 = 2, X_3 = 3; k = 3, p = 0.5:
    # (1-p)/p * (0 + 2/2 * 0.25 + 3/3 * 0.125) + 3/3 * 0.125 = 0.375 + 0.125 = 0.5
    assert rp.rbo_ext(["a", "b", "c"], ["b", "a", "c"], 0.5) == pytest.approx(0.5)
    # doctest of the rbo module repro_eval shipped in 2020: rbo_ext("abcdefg", "bacdefg", .9) == 0.9
    assert rp.rbo_ext(list("abcdefg"), list("bacdefg"), 0.9) == pytest.approx(0.9)


def test_rbo_ext_uneven_lists_follow_eq_32_as_written() -> None:
    # S = [a, b] (s = 2), L = [a, c, b] (l = 3), p = 0.5; X_1 = 1, X_2 = 1, X_3 = 2
    # sum_1 = 1/1 * .5 + 1/2 * .25 + 2/3 * .125 = 0.708333
    # sum_2 (d = 3) = X_s * (3 - 2) / (2 * 3) * .125 = 0.0208333; (1-p)/p = 1
    # tail = ((X_l - X_s)/l + X_s/s) * p^l = (1/3 + 1/2) * .125 = 0.1041667; total 5/6
    assert rp.rbo_ext(["a", "b"], ["a", "c", "b"], 0.5) == pytest.approx(5 / 6)
    assert rp.rbo_ext(["a", "c", "b"], ["a", "b"], 0.5) == pytest.approx(5 / 6)


def test_rbo_ext_extremes_and_errors() -> None:
    assert rp.rbo_ext(list("abcd"), list("abcd"), 0.9) == pytest.approx(1.0)
    assert rp.rbo_ext(list("abc"), list("xyz"), 0.9) == 0.0
    assert rp.rbo_ext(list("ab"), list("abcd"), 0.8) == pytest.approx(1.0)  # a prefix extrapolates to agreement
    for p in (0.0, 1.0, -0.5, 1.5):
        with pytest.raises(UsageError, match="persistence"):
            rp.rbo_ext(["a"], ["a"], p)
    with pytest.raises(PyfnError, match="empty"):
        rp.rbo_ext([], ["a"], 0.9)
    with pytest.raises(UsageError, match="repeats"):
        rp.rbo_ext(["a", "a"], ["a", "b"], 0.9)


# ------------------------------------------------------------------ per-topic measures


def test_rmse_hand_computed() -> None:
    # A: differences -0.1, 0, 0.1, 0 -> mean square 0.02 / 4 = 0.005 -> sqrt = 0.0707107
    assert rp.rmse(ORIG["A"], REP["A"]) == pytest.approx(math.sqrt(0.005))
    assert rp.rmse({"x": 1.0, "y": 2.0}, {"y": 4.0, "z": 0.0}) == pytest.approx(2.0)  # shared topic y only
    with pytest.raises(PyfnError, match="share no topic"):
        rp.rmse({"x": 1.0}, {"y": 1.0})


def test_paired_ttest_closed_form_and_degenerate_cases() -> None:
    # differences 1, 2, 3: mean 2, sd 1, t = 2 / (1 / sqrt 3) = 2 sqrt 3, df 2;
    # two-sided p for df 2 = 1 - t / sqrt(t^2 + 2)
    t = 2 * math.sqrt(3)
    assert rp.paired_ttest({"a": 2, "b": 3, "c": 4}, {"a": 1, "b": 1, "c": 1}) == pytest.approx(
        1 - t / math.sqrt(t * t + 2)
    )
    assert rp.paired_ttest(ORIG["A"], REP["A"]) == pytest.approx(1.0)  # mean difference 0 -> t = 0
    assert rp.paired_ttest(ORIG["A"], ORIG["A"]) == 1.0  # 0/0: identical scores, as repro_eval
    assert math.isnan(rp.paired_ttest({"a": 1.0}, {"a": 2.0}))  # one pair: no variance estimate
    with pytest.raises(PyfnError, match="share no topic"):
        rp.paired_ttest({"a": 1.0}, {"b": 1.0})


def test_unpaired_ttest_is_students_by_default() -> None:
    # [1,2,3] vs [4,5,6]: pooled variance 1, t = -3 / sqrt(2/3), df 4;
    # two-sided p for df 4 = 1 - (3/2) s + (1/2) s^3 with s = |t| / sqrt(t^2 + 4)
    t = 3 / math.sqrt(2 / 3)
    s = t / math.sqrt(t * t + 4)
    a, b = {"x": 1, "y": 2, "z": 3}, {"u": 4, "v": 5, "w": 6}
    assert rp.unpaired_ttest(a, b) == pytest.approx(1 - 1.5 * s + 0.5 * s**3)
    # unequal variances: Welch (df 50/17) differs from Student (df 4)
    c = {"u": 4, "v": 6, "w": 8}
    assert rp.unpaired_ttest(a, c, welch=True) > rp.unpaired_ttest(a, c)
    assert rp.unpaired_ttest({"x": 1.0, "y": 1.0}, {"u": 1.0, "v": 1.0}) == 1.0  # same constant samples: 0/0
    with pytest.raises(PyfnError):
        rp.unpaired_ttest({}, b)


# ------------------------------------------------------------------ overall effects


def test_effect_ratio_and_delta_ri_hand_computed() -> None:
    # original: A - B per topic 0.1, 0.1, 0.2, 0.2 -> mean 0.15; reproduced: 0.2, 0.2, 0.1, 0.3 -> 0.2
    # ER = 0.2 / 0.15 = 4/3
    assert rp.effect_ratio(ORIG["A"], ORIG["B"], REP["A"], REP["B"]) == pytest.approx(4 / 3)
    # RI = 0.15 / 0.5 = 0.3; RI' = 0.2 / 0.45 = 0.4444; Delta RI = RI - RI' = -0.1444
    assert rp.relative_improvement(ORIG["A"], ORIG["B"]) == pytest.approx(0.3)
    assert rp.delta_ri(ORIG["A"], ORIG["B"], REP["A"], REP["B"]) == pytest.approx(0.3 - 0.2 / 0.45)


def test_effects_undefined_are_errors() -> None:
    zero = {"t1": 0.0, "t2": 0.0}
    with pytest.raises(PyfnError, match="mean score is 0"):
        rp.relative_improvement({"t1": 0.5, "t2": 0.5}, zero)
    same = {"t1": 0.2, "t2": 0.4}
    with pytest.raises(PyfnError, match="original mean improvement is 0"):
        rp.effect_ratio(same, same, {"t1": 0.3, "t2": 0.4}, same)
    with pytest.raises(PyfnError, match="share no topic"):
        rp.mean_improvement({"t1": 1.0}, {"t2": 1.0})


# ------------------------------------------------------------------ compare_runs


def test_identical_runs_are_perfectly_reproduced() -> None:
    out = rp.compare_runs(ORIG, ORIG, "B", None)
    rank = out["rankings"]
    assert rank["kendall_tau_b"] == rank["ktu"] == rank["ktu_per_topic"] == pytest.approx(1.0)
    assert rank["rbo"] == rank["rbo_per_topic"] == pytest.approx(1.0)
    for row in out["per_system"].values():
        assert row["rmse"] == 0.0
        assert row["p_paired"] == row["p_unpaired"] == 1.0  # 0/0 cases defined as "no difference"
    for row in out["effects"].values():
        assert row["er"] == pytest.approx(1.0)
        assert row["delta_ri"] == pytest.approx(0.0)
    assert out["signature"] == f"repro|topics:sentence|n_sys:3|rbo:ext-p0.8|ttest:paired+student|v:{__version__}"
    json.dumps(out, allow_nan=False)  # JSON-ready: no NaN


def test_reversed_ranking_gives_minus_one() -> None:
    reversed_run = {"A": ORIG["C"], "B": ORIG["B"], "C": ORIG["A"]}
    rank = rp.compare_runs(ORIG, reversed_run)["rankings"]
    assert rank["kendall_tau_b"] == pytest.approx(-1.0)
    assert rank["ktu"] == pytest.approx(-1.0)
    # [A,B,C] vs [C,B,A], p = 0.8: X_1 = 0, X_2 = 1, X_3 = 3
    # (0.2/0.8) * (0 + 1/2 * 0.64 + 3/3 * 0.512) + 3/3 * 0.512 = 0.208 + 0.512 = 0.72
    # (RBO is top-weighted: full overlap at depth 3 still counts)
    assert rank["rbo"] == pytest.approx(0.72)


def test_compare_runs_values_and_holm() -> None:
    out = rp.compare_runs(ORIG, REP, "B", "B", 0.9, welch=True, topic_unit="document")
    assert out["signature"].startswith("repro|topics:document|n_sys:3|rbo:ext-p0.9|ttest:paired+welch|")
    a = out["per_system"]["A"]
    assert a["rmse"] == pytest.approx(math.sqrt(0.005))
    assert out["effects"]["A"]["er"] == pytest.approx(4 / 3)
    # t1: a = A.5 B.4 C.3, b = A.6 B.4 C.45 -> (B,C) discordant: 1/3; t2, t3, t4 keep the order: 1
    assert out["rankings"]["ktu_per_topic"] == pytest.approx((1 / 3 + 3) / 4)
    paired = [out["per_system"][s]["p_paired"] for s in "ABC"]
    assert [out["per_system"][s]["p_paired_holm"] for s in "ABC"] == pytest.approx(holm(paired))
    assert out["topics"]["shared_ids"] == ["t1", "t2", "t3", "t4"]


def test_baselines_pair_up_under_different_names() -> None:
    rep = {"A": REP["A"], "B_rerun": REP["B"], "C": REP["C"], "D": {"t1": 0.1, "t9": 0.2}}
    out = rp.compare_runs(ORIG, rep, "B", "B_rerun")
    assert out["baseline"] == {"original": "B", "reproduced": "B_rerun"}
    assert out["systems"] == {"matched": ["A", "B", "C"], "original_only": [], "reproduced_only": ["D"]}
    assert out["topics"]["reproduced_only"] == ["t9"]
    assert out["effects"]["A"]["er"] == pytest.approx(4 / 3)
    with pytest.raises(UsageError, match="not a system of the original"):
        rp.compare_runs(ORIG, rep, "Z", "B_rerun")
    with pytest.raises(UsageError, match="not a system of the reproduced"):
        rp.compare_runs(ORIG, rep, "B", None)
    with pytest.raises(UsageError, match="cannot pair"):
        rp.compare_runs(ORIG, {**rep, "B": REP["B"]}, "B", "B_rerun")


def test_compare_runs_skips_what_it_cannot_compute() -> None:
    other_topics = {s: {f"u{t}": v for t, v in scores.items()} for s, scores in REP.items()}
    out = rp.compare_runs(ORIG, other_topics, "B")
    assert "paired" in out["skipped"]
    assert out["per_system"]["A"]["rmse"] is None and out["per_system"]["A"]["p_paired"] is None
    assert out["per_system"]["A"]["p_unpaired"] is not None
    assert out["effects"]["A"]["er"] == pytest.approx(4 / 3)  # ER and Delta RI need no shared topic
    assert out["rankings"]["n_topics"] == 0 and out["rankings"]["kendall_tau_b"] is not None
    one = rp.compare_runs({"A": ORIG["A"]}, {"A": REP["A"]})
    assert one["rankings"] is None and "rankings" in one["skipped"]


def test_compare_runs_errors() -> None:
    with pytest.raises(PyfnError, match="no system name in common"):
        rp.compare_runs({"A": ORIG["A"]}, {"Z": REP["A"]})
    with pytest.raises(PyfnError, match="mean score is 0"):
        rp.compare_runs({"A": ORIG["A"], "Z": {"t1": 0.0}}, {"A": REP["A"], "Z": {"t1": 0.0}}, "Z")
    with pytest.raises(PyfnError, match="not a finite number"):
        rp.compare_runs({"A": {"t1": math.nan}}, {"A": {"t1": 1.0}})
    with pytest.raises(UsageError, match="persistence"):
        rp.compare_runs(ORIG, REP, rbo_p=1.0)
    with pytest.raises(UsageError, match="topic unit"):
        rp.compare_runs(ORIG, REP, topic_unit="token")


# ------------------------------------------------------------------ properties

ITEMS = st.sampled_from(list("abcdefghij"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(ITEMS, min_size=1, max_size=10, unique=True),
    st.lists(ITEMS, min_size=1, max_size=10, unique=True),
    st.floats(min_value=0.01, max_value=0.99),
)
def test_rbo_ext_lies_in_unit_interval_and_is_symmetric(a: list[str], b: list[str], p: float) -> None:
    value = rp.rbo_ext(a, b, p)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(rp.rbo_ext(b, a, p))
    if a == b:
        assert value == pytest.approx(1.0)


SCORES = st.dictionaries(ITEMS, st.floats(min_value=0, max_value=1, allow_nan=False), min_size=2, max_size=8)


@settings(max_examples=300, deadline=None)
@given(SCORES, SCORES)
def test_taus_lie_in_minus_one_one(a: dict[str, float], b: dict[str, float]) -> None:
    for value in (rp.ktu(a, b), rp.kendall_tau_b(a, b) if len(set(a) & set(b)) >= 2 else math.nan):
        assert math.isnan(value) or -1.0 <= value <= 1.0


# ------------------------------------------------------------------ reading runs


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_tsv_with_header_comments_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "run.tsv", "# scores\nsystem\ttopic\tscore\n\nA\tt1\t0.5\nA\tt2\t1\nB\tt1\t0.25\n")
    assert read_runs(path) == {"A": {"t1": 0.5, "t2": 1.0}, "B": {"t1": 0.25}}


def test_read_json(tmp_path: Path) -> None:
    path = write(tmp_path, "run.json", '{"A": {"t1": 0.5, "t2": 1}}')
    assert read_runs(path) == {"A": {"t1": 0.5, "t2": 1.0}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A\tt1\t0.5\nA\tt2\tabc\n", r"run\.tsv:2: score 'abc' is not a number"),
        ("A\tt1\t0.5\nA\tt2\n", r"run\.tsv:2: expected 3 tab-separated columns .* got 2"),
        (
            "# c\nA\tt1\t0.5\nB\tt1\t0.5\nA\tt1\t0.7\n",
            r"run\.tsv:4: duplicate score for system 'A', topic 't1' \(first on line 2\)",
        ),
        ("A\tt1\tnan\n", r"run\.tsv:1: score 'nan' is not a finite number"),
        ("A\t\t0.5\n", r"run\.tsv:1: empty system or topic name"),
        ("# only a comment\n", r"run\.tsv: no scores"),
    ],
)
def test_read_tsv_errors_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PyfnError, match=message):
        read_runs(write(tmp_path, "run.tsv", text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"A": {"t1": 0.5,\n "t1": 0.6}}', r"run\.json: duplicate key 't1'"),
        ('{"A": {"t1": "high"}}', r"run\.json: system 'A', topic 't1': score 'high' is not a number"),
        ('{"A": {"t1": true}}', r"is not a number"),
        ('{"A": {"t1": NaN}}', r"not a finite number"),
        ('{"A": {"t1": 0.5},\n "B": }', r"run\.json:2: invalid JSON"),
        ('{"A": []}', r"system 'A': expected a non-empty object"),
        ("[1, 2]", r"expected an object"),
    ],
)
def test_read_json_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PyfnError, match=message):
        read_runs(write(tmp_path, "run.json", text))


def test_read_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PyfnError, match="cannot read"):
        read_runs(tmp_path / "absent.tsv")


# ------------------------------------------------------------------ the command


def tsv(runs: dict[str, dict[str, float]]) -> str:
    return "system\ttopic\tscore\n" + "".join(f"{s}\t{t}\t{v}\n" for s, ts in runs.items() for t, v in ts.items())


def command(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="pyfn")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["compare-runs", *argv])
    return args.func(args)


@pytest.fixture()
def run_files(tmp_path: Path) -> tuple[str, str]:
    return str(write(tmp_path, "orig.tsv", tsv(ORIG))), str(write(tmp_path, "rep.json", json.dumps(REP)))


def test_command_prints_a_table_with_the_signature(run_files: tuple[str, str], capsys: pytest.CaptureFixture) -> None:
    assert command(*run_files, "--baseline-original", "B") == 0
    out = capsys.readouterr().out
    assert "mean_orig" in out and "RMSE" in out and "p_student" in out
    assert any(line.startswith("A ") and "0.0707" in line for line in out.splitlines())
    assert "rankings on mean scores: Kendall tau-b 1.0000" in out
    assert "effects against baseline B" in out and "1.3333" in out
    assert (
        out.rstrip().splitlines()[-1]
        == f"repro|topics:sentence|n_sys:3|rbo:ext-p0.8|ttest:paired+student|v:{__version__}"
    )


def test_command_json_and_output_file(
    run_files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert command(*run_files, "--json", "--rbo-p", "0.9") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["signature"].startswith("repro|topics:sentence|n_sys:3|rbo:ext-p0.9|")
    assert out["original_file"] == run_files[0]
    target = tmp_path / "sub" / "cmp.json"
    assert command(*run_files, "--output", str(target)) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "wrote" in captured.err
    assert json.loads(target.read_text())["signature"] == out["signature"].replace("p0.9", "p0.8")
    assert not list(target.parent.glob(".*.tmp"))


def test_command_errors(run_files: tuple[str, str]) -> None:
    with pytest.raises(UsageError, match="--rbo-p"):
        command(*run_files, "--rbo-p", "1.5")
    with pytest.raises(UsageError, match="not a system of the original"):
        command(*run_files, "--baseline-original", "nope")
