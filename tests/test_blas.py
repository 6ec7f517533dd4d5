"""OpenBLAS's kernels pinned for the external parsers' processes (pyfn.parsers.blas)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyfn.parsers import blas, open_sesame, simpleframeid

AVX2 = frozenset({"fpu", "sse2", "avx", "avx2", "fma"})


def test_haswell_where_its_kernels_run() -> None:
    assert blas.coretype({}, "x86_64", AVX2) == "Haswell"
    assert blas.coretype({}, "AMD64", AVX2 | {"avx512f"}) == "Haswell"


@pytest.mark.parametrize(("machine", "flags"), [
    ("x86_64", frozenset({"sse2", "avx"})),          # no AVX2: the Haswell kernels would not run
    ("x86_64", frozenset({"avx2"})),                 # AVX2 without FMA
    ("x86_64", frozenset()),                         # no /proc/cpuinfo
    ("aarch64", AVX2),                               # another architecture
])
def test_openblas_chooses_elsewhere(machine: str, flags: frozenset[str]) -> None:
    assert blas.coretype({}, machine, flags) is None


def test_the_users_own_choice_wins() -> None:
    assert blas.coretype({"OPENBLAS_CORETYPE": "SkylakeX"}, "x86_64", AVX2) == "SkylakeX"
    assert blas.coretype({"OPENBLAS_CORETYPE": "Prescott"}, "aarch64", frozenset()) == "Prescott"
    assert blas.coretype({"OPENBLAS_CORETYPE": ""}, "x86_64", AVX2) == "Haswell"


def test_cpu_flags_from_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 avx2 fma\n\n"
                    "processor\t: 1\nflags\t\t: fpu sse2 avx2 fma\n", encoding="utf-8")
    assert blas.cpu_flags(info) == frozenset({"fpu", "sse2", "avx2", "fma"})
    assert blas.cpu_flags(tmp_path / "absent") == frozenset()
    (tmp_path / "arm").write_text("processor\t: 0\nFeatures\t: fp asimd\n", encoding="utf-8")
    assert blas.cpu_flags(tmp_path / "arm") == frozenset()


def test_record_says_when_not_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.setattr(blas.platform, "machine", lambda: "aarch64")
    assert blas.blas_env() == {}
    assert blas.record() == "chosen by OpenBLAS for this CPU (not pinned)"
    monkeypatch.setattr(blas.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(blas, "cpu_flags", lambda: AVX2)
    assert blas.blas_env() == {"OPENBLAS_CORETYPE": "Haswell"}
    assert blas.record() == "Haswell"


def test_parsers_environments_carry_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.setattr(blas.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(blas, "cpu_flags", lambda: AVX2)
    assert open_sesame._env(tmp_path)["OPENBLAS_CORETYPE"] == "Haswell"
    assert simpleframeid._env(tmp_path)["OPENBLAS_CORETYPE"] == "Haswell"
    monkeypatch.setattr(blas.platform, "machine", lambda: "aarch64")
    assert "OPENBLAS_CORETYPE" not in open_sesame._env(tmp_path)


def test_cpu_kind_and_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n"
                    "model name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu avx2 fma avx512f\n\n"
                    "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n", encoding="utf-8")
    assert blas.cpu_kind(info) == "GenuineIntel family 6 model 207"
    monkeypatch.setattr(blas.platform, "machine", lambda: "aarch64")
    assert blas.cpu_kind(tmp_path / "absent") == f"aarch64 (no CPU model in {tmp_path / 'absent'})"
    monkeypatch.setattr(blas, "cpu_kind", lambda: "GenuineIntel family 6 model 207")
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    assert blas.machine() == {"architecture": "aarch64", "cpu": "GenuineIntel family 6 model 207",
                              "openblas_coretype": "chosen by OpenBLAS for this CPU (not pinned)"}
