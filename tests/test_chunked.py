"""Writing splits in chunks across processes gives the bytes, losses and sentence tables of writing each split whole."""

import contextlib
import dataclasses
import gc
import itertools
import json

import pytest
from conftest import make_set
from hypothesis import given
from hypothesis import strategies as st

from pyfn.convert import SplitSpec, make_definition, read_frames
from pyfn.errors import PyfnError
from pyfn.fileio import sha256_file
from pyfn.formats import jsonl
from pyfn.formats.base import SplitView
from pyfn.formats.chunked import SplitLines, plan, write_splits
from pyfn.formats.registry import WRITERS, FormatOptions, loss_counts, write_split
from pyfn.framenet.release import open_release
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions, build_splits

FORMATS = ("jsonl", "semafor", "bios", "conllx", "conllu", "semeval")


@given(st.lists(st.integers(1, 6), max_size=40), st.integers(1, 12))
def test_plan_cuts_between_sentences_only(sizes, size):
    starts, n = [], 0
    for k in sizes:  # sentence i has sizes[i] lines
        starts.append(n)
        n += k
    chunks = plan(n, starts, size)
    assert chunks[0][:1] == (0,) and chunks[-1][1] == n
    for (_, e0, _), (b1, _, _) in itertools.pairwise(chunks):
        assert e0 == b1  # consecutive, nothing skipped
    for begin, end, first in chunks:
        assert (begin == end == n == 0) or (begin < end and starts[first] == begin)
        # a chunk is as short as the sentence boundaries allow: it ends at the first start past ``size`` lines
        inside = [s for s in starts if begin < s < end]
        assert all(s < begin + size for s in inside)
        assert end == n or end >= begin + size


def _built(**options):
    release = open_release(resource_path("sample"))
    return release, build_splits(release, make_definition(release, SplitSpec()), BuildOptions(**options))


def _whole(target, result, formats):
    """Every split written at once by the writers, as for sets read from a directory."""
    outputs, losses, tables = {}, {}, {}
    for name, data in result.splits.items():
        view = SplitView.of([jsonl.loads(line) for line in data.lines])
        tables[name] = view.table
        paths, found = write_split(target, name, view, FORMATS, formats)
        outputs.update((path.name, sha256_file(path)) for path in paths)
        losses[name] = loss_counts(found, several=True)
    return dict(sorted(outputs.items())), losses, tables


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("chunk_sets", [1, 7, 100000])
def test_chunks_write_the_bytes_of_whole_splits(tmp_path, jobs, chunk_sets):
    release, result = _built(with_exemplars=True)
    formats = FormatOptions(frames=read_frames(release), bios_fe_ranks="all")
    expected, losses, tables = _whole(tmp_path / "whole", result, formats)
    assert all(losses.values())  # every rank in BIOS: overlapping FEs are lost, and losses are compared too
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    written = write_splits(tmp_path / "chunked", split_lines, FORMATS, formats, jobs=jobs, chunk_sets=chunk_sets)
    assert written.outputs == expected
    assert {p.name: sha256_file(p) for p in (tmp_path / "chunked").iterdir()} == expected  # no scratch left
    assert written.losses == losses
    for name, table in tables.items():
        assert written.tables[name] == table
    assert all(not s.lines for s in split_lines)  # released as sent


def test_a_split_whose_file_no_chunk_has_counts_it_once(tmp_path):
    """With no frame known every train set is dropped from BIOS: no ``train.bios``, ``empty_split`` counted once."""
    _, result = _built()
    split_lines = [SplitLines("train", list(result.splits["train"].lines), result.splits["train"].starts)]
    written = write_splits(tmp_path, split_lines, ("bios",), FormatOptions(frames={}), jobs=2, chunk_sets=5)
    assert not (tmp_path / "train.bios").exists()
    assert written.losses["train"]["empty_split"] == 1
    assert written.losses["train"]["frame_not_in_frames"] == len(result.splits["train"].lines)


def test_an_error_in_a_chunk_names_the_final_file_and_leaves_nothing(tmp_path, monkeypatch):
    _, result = _built()
    data = result.splits["train"]

    def failing(directory, split, view, formats, losses):
        if view.table.first > 0:  # a later chunk: earlier ones have been appended already
            raise PyfnError(f"{directory / 'train.sentences.conllx'}: sentence {view.table.first}: cannot be written")
        return WRITERS["conllx"](directory, split, view, formats, losses)

    monkeypatch.setitem(WRITERS, "failing", failing)  # the workers are forked: they see it
    (tmp_path / "train.sentences.conllx").write_text("previous run\n")
    with pytest.raises(PyfnError) as err:
        write_splits(tmp_path, [SplitLines("train", list(data.lines), data.starts)], ("failing",),
                     FormatOptions(), jobs=2, chunk_sets=5)
    assert str(err.value).startswith(f"{tmp_path / 'train.sentences.conllx'}: sentence ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.sentences.conllx"]  # no scratch, no temporary
    assert (tmp_path / "train.sentences.conllx").read_text() == "previous run\n"


def test_a_line_break_in_a_sentence_is_refused_naming_the_sentence(tmp_path):
    _, result = _built()
    lines = list(result.splits["train"].lines)
    bad = json.loads(lines[-1])
    bad["sentence"]["text"] = bad["sentence"]["text"].replace(" ", "\n", 1)  # same offsets, one line break
    lines[-1] = json.dumps(bad).encode()
    with pytest.raises(PyfnError, match=rf"sentence \[{bad['sentence']['id']}\] .* contains a CR or LF"):
        write_splits(tmp_path, [SplitLines("train", lines, result.splits["train"].starts)], ("conllx",),
                     FormatOptions(), jobs=2, chunk_sets=5)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fail", [False, True])
def test_writing_in_process_leaves_the_cyclic_collector_as_it_was(tmp_path, fail):
    _, result = _built()
    lines = list(result.splits["dev"].lines)
    if fail:
        lines[0] = lines[0].replace(b'"frame":"', b'"frame":"\\t', 1)  # a TAB SEMAFOR cannot hold
    assert gc.isenabled()
    with pytest.raises(PyfnError, match="TAB") if fail else contextlib.nullcontext():
        write_splits(tmp_path, [SplitLines("dev", lines, result.splits["dev"].starts)], ("semafor",), FormatOptions(),
                     jobs=1, chunk_sets=5)
    assert gc.isenabled()


def test_the_shared_sentences_file_is_written_once_and_its_losses_count_for_each_format(tmp_path):
    text = "two  spaces here"
    exemplar = dataclasses.replace(make_set(text, [(5, 10)]), source="exemplar")  # normalized: a loss
    paths, losses = write_split(tmp_path, "train", [exemplar], ("semafor", "bios", "conllx"), FormatOptions())
    names = [p.name for p in paths]
    assert names.count("train.sentences") == 1
    assert sorted(names) == ["train.bios", "train.frame.elements", "train.sentences", "train.sentences.conllx"]
    assert (tmp_path / "train.sentences").read_text() == "two spaces here\n"
    assert loss_counts(losses, several=True) == {
        "bios:normalized_space": 1, "conllx:normalized_space": 1, "semafor:normalized_space": 1,
    }
    assert loss_counts({"bios": losses["bios"]}, several=False) == {"normalized_space": 1}


@pytest.mark.parametrize("fails", [False, True])
def test_a_split_s_files_are_synced_once_its_last_chunk_is_in(tmp_path, monkeypatch, fails):
    """The final files of a split go to disk in threads once its last chunk is appended (before
    the later splits' chunks), then again when they are renamed; an early fsync that fails changes
    nothing (the one at the end would report it)."""
    import os  # noqa: PLC0415
    import threading  # noqa: PLC0415

    from pyfn.formats import chunked  # noqa: PLC0415

    release, result = _built()
    synced: list[str] = []
    real = os.fsync

    def fsync(fd):
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        synced.append(name)
        if fails and threading.current_thread() is not threading.main_thread():  # an early one
            raise OSError(5, "I/O error")
        real(fd)

    monkeypatch.setattr(chunked.os, "fsync", fsync)
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    written = write_splits(tmp_path, split_lines, ("semafor", "bios"), FormatOptions(frames=read_frames(release)),
                           jobs=1, chunk_sets=5)
    early = {name.split(".tmp")[0].lstrip(".").rsplit(".", 1)[0] for name in synced}
    assert {"train.sentences", "train.frame.elements", "train.bios", "dev.bios", "test.frames"} <= early
    assert synced.index(next(n for n in synced if n.startswith(".train."))) < synced.index(
        next(n for n in synced if n.startswith(".test.")))
    for name, digest in written.outputs.items():
        assert sha256_file(tmp_path / name) == digest


def test_the_writers_processes_read_the_release_s_frames_themselves(tmp_path):
    """Given :class:`~pyfn.framenet.lexicon.ReleaseFrames`, each writer process reads the frames
    (while the parent builds); the parent never does, and the files are those of frames read first."""
    from pyfn.framenet.lexicon import ReleaseFrames  # noqa: PLC0415

    release, result = _built()
    frames = ReleaseFrames(release)
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    lazy = write_splits(tmp_path / "lazy", split_lines, ("bios",), FormatOptions(frames=frames), jobs=2, chunk_sets=5)
    assert frames._frames is None  # not read here
    release, result = _built()
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    read = write_splits(tmp_path / "read", split_lines, ("bios",), FormatOptions(frames=read_frames(release)), jobs=2,
                        chunk_sets=5)
    assert lazy.outputs == read.outputs and lazy.losses == read.losses
    assert b"\tCore\n" in (tmp_path / "lazy" / "train.bios").read_bytes()  # column 15 from the frames


def test_a_frame_file_the_writers_cannot_read_fails_the_conversion(tmp_path, monkeypatch):
    from pyfn.framenet import lexicon  # noqa: PLC0415

    release, result = _built()

    def broken(data, relpath):
        raise PyfnError(f"{relpath}: not well-formed")

    monkeypatch.setattr(lexicon, "read_frame", broken)  # the workers are forked from here: they see it
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    with pytest.raises(PyfnError, match=r"frame/.*\.xml: not well-formed"):
        write_splits(tmp_path, split_lines, ("bios",), FormatOptions(frames=lexicon.ReleaseFrames(release)), jobs=2,
                     chunk_sets=5)
    assert not list(tmp_path.iterdir())


def test_sentence_tables_come_back_only_when_asked_for(tmp_path):
    """Preprocessing needs the tables; every other run writes the same files without sending them."""
    release, result = _built()

    def write(target, tables):
        split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
        return write_splits(target, split_lines, ("semafor", "conllu"), FormatOptions(), jobs=2, chunk_sets=5,
                            tables=tables)

    with_tables, without = write(tmp_path / "with", True), write(tmp_path / "without", False)
    assert without.tables == {} and set(with_tables.tables) == {"train", "dev", "test"}
    assert (without.outputs, without.losses) == (with_tables.outputs, with_tables.losses)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_frame_layer_writers_read_frame_layers_only_and_write_the_same_bytes(tmp_path, jobs, monkeypatch):
    """Chunks for JSONL, SEMAFOR, BIOS and CoNLL only are decoded without PT and GF layers and POS tags
    (``frame_layers_only``): the files and losses of whole sets; with another format that writes the
    chunk's split, whole sets (SemEval XML writes dev and test, not train)."""
    tos = ("jsonl", "semafor", "bios", "conllx", "conllu")
    release, result = _built(with_exemplars=True)
    formats = FormatOptions(frames=read_frames(release), bios_fe_ranks="all")
    expected, losses = {}, {}
    for name, data in result.splits.items():
        view = SplitView.of([jsonl.loads(line) for line in data.lines])
        assert any(s.sentence.pos for s in view.sets) and any(la.name == "GF" for s in view.sets for la in s.layers)
        paths, found = write_split(tmp_path / "whole", name, view, tos, formats)
        expected.update((path.name, sha256_file(path)) for path in paths)
        losses[name] = loss_counts(found, several=True)
    asked = []
    loads = jsonl.loads
    monkeypatch.setattr(jsonl, "loads", lambda line, where="<string>", frame_layers_only=False: (
        asked.append((line, frame_layers_only)), loads(line, where, frame_layers_only))[1])
    split_of = {line: name for name, data in result.splits.items() for line in data.lines}
    for target, formats_to in ((tmp_path / "chunked", tos), (tmp_path / "with_semeval", (*tos, "semeval"))):
        split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
        written = write_splits(target, split_lines, formats_to, formats, jobs=jobs, chunk_sets=7, tables=False)
        assert {name: written.outputs[name] for name in expected} == expected  # and SemEval's own files
        assert {split: {k: n for k, n in found.items() if not k.startswith("semeval")} for split, found in
                written.losses.items()} == losses
        if jobs == 1:  # in this process: what each split's chunks were decoded with
            decoded: dict[str, set[bool]] = {}
            for line, frame_layers_only in asked:
                decoded.setdefault(split_of[line], set()).add(frame_layers_only)
            assert decoded == {name: {formats_to == tos or name == "train"} for name in result.splits}
            asked.clear()


def test_what_a_writer_derives_from_the_release_s_frames_is_made_once():
    """:meth:`ReleaseFrames.derived`: one call of ``make`` per process, whatever the number of chunks."""
    from pyfn.framenet.lexicon import ReleaseFrames  # noqa: PLC0415

    release, _ = _built()
    frames = ReleaseFrames(release)
    made = []

    def names(mapping):
        made.append(1)
        return sorted(mapping)

    first = frames.derived(names)
    assert frames.derived(names) is first and made == [1]
    assert first == sorted(read_frames(release)) and frames.derived(len) == len(first)


@pytest.mark.parametrize("behind", [1, 32 << 20])
def test_a_final_file_goes_to_disk_while_it_is_being_copied(tmp_path, monkeypatch, behind):
    """Past ``SYNC_BEHIND`` bytes copied, a thread fsyncs the file while the copying goes on (here
    before train's last chunk is in); below it, only once the split is complete. Same bytes."""
    import os  # noqa: PLC0415
    import threading  # noqa: PLC0415

    from pyfn.formats import chunked  # noqa: PLC0415

    release, result = _built()
    sizes: dict[str, list[int]] = {}
    real = os.fsync

    def fsync(fd):
        if threading.current_thread() is not threading.main_thread():
            name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).split(".tmp")[0].lstrip(".").rsplit(".", 1)[0]
            sizes.setdefault(name, []).append(os.fstat(fd).st_size)
        real(fd)

    monkeypatch.setattr(chunked.os, "fsync", fsync)
    monkeypatch.setattr(chunked, "SYNC_BEHIND", behind)
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    written = write_splits(tmp_path, split_lines, ("semafor", "bios"), FormatOptions(frames=read_frames(release)),
                           jobs=1, chunk_sets=5)
    final = (tmp_path / "train.bios").stat().st_size
    assert (min(sizes["train.bios"]) < final) == (behind == 1) and max(sizes["train.bios"]) <= final
    for name, digest in written.outputs.items():
        assert sha256_file(tmp_path / name) == digest


@pytest.mark.parametrize("tos", [("semafor",), ("semafor", "semeval")])
def test_the_splits_kept_whole_go_to_the_workers_first(tmp_path, monkeypatch, tos):
    """With SemEval XML, dev and test are one chunk each: they are sent first, the larger first, so
    that no worker is left alone on one at the end; otherwise the splits go in the order given."""
    from pyfn.formats import chunked  # noqa: PLC0415

    _, result = _built()
    sent: list[str] = []
    write = chunked._write_chunk
    monkeypatch.setattr(chunked, "_write_chunk", lambda chunk: (sent.append(chunk.split), write(chunk))[1])
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    written = write_splits(tmp_path, split_lines, tos, FormatOptions(), jobs=1, chunk_sets=5)
    order = [split for split, _ in itertools.groupby(sent)]
    by_size = sorted(("dev", "test"), key=lambda name: -len(result.splits[name].lines))
    assert order == ([*by_size, "train"] if "semeval" in tos else list(result.splits))
    assert sent.count("train") > 1 and ("dev.gold.xml" in written.outputs) == ("semeval" in tos)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_jsonl_file_is_the_lines_written_by_the_parent(tmp_path, monkeypatch, jobs):
    """``{split}.jsonl`` holds each line and a newline, in order, written by this process (no worker
    writes a JSONL part); a split without lines gets an empty file."""
    from pyfn.formats import chunked  # noqa: PLC0415

    _, result = _built()
    write = chunked._write_chunk
    names: list[str] = []
    if jobs == 1:  # in this process: the names of the chunks' files
        monkeypatch.setattr(chunked, "_write_chunk", lambda chunk: (lambda done: (names.extend(done.names), done)[1])(
            write(chunk)))
    expected = {name: b"".join(line + b"\n" for line in data.lines) for name, data in result.splits.items()}
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    split_lines.append(SplitLines("empty", [], []))
    written = write_splits(tmp_path, split_lines, ("jsonl", "semafor"), FormatOptions(), jobs=jobs, chunk_sets=4)
    for name, data in {**expected, "empty": b""}.items():
        assert (tmp_path / f"{name}.jsonl").read_bytes() == data
        assert written.outputs[f"{name}.jsonl"] == sha256_file(tmp_path / f"{name}.jsonl")
    assert jobs == 2 or (names and not any(name.endswith(".jsonl") for name in names))


def test_a_failure_while_writing_drains_the_workers_tasks_before_the_pool_ends(tmp_path, monkeypatch):
    """A conversion stopped while it writes (Ctrl-C) stops and drains the writers' tasks inside
    :func:`write_splits`, before convert's pool is terminated: left to the end of the traceback, the
    drain met a terminated pool and waited its full time (Ctrl-C took 5 s)."""
    from multiprocessing.pool import Pool  # noqa: PLC0415

    from pyfn.convert import convert  # noqa: PLC0415

    stopped_first: list[bool] = []
    terminate = Pool.terminate

    def recording(pool):
        if hasattr(pool, "stop_tasks"):
            stopped_first.append(pool.stop_tasks.is_set())
        terminate(pool)

    monkeypatch.setattr(Pool, "terminate", recording)

    def interrupted(items, total):
        for i, item in enumerate(items):
            if i == 2:
                raise KeyboardInterrupt
            yield item

    with pytest.raises(KeyboardInterrupt):
        convert(resource_path("sample"), tmp_path / "out", to=("jsonl", "semafor", "bios"),
                options=BuildOptions(with_exemplars=True, jobs=2), write_progress=interrupted)
    assert stopped_first and all(stopped_first)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kernel", ["copies", "absent", "refuses"])
def test_the_parts_are_copied_by_the_kernel_or_written_the_same(tmp_path, monkeypatch, kernel):
    """The final files get the parts' bytes whether the kernel copies them (``copy_file_range``), does not
    offer the copy, or refuses it for these files (then it is not asked again); same bytes and hashes."""
    import errno  # noqa: PLC0415
    import os  # noqa: PLC0415

    from pyfn.formats import chunked  # noqa: PLC0415

    calls = []
    real = os.copy_file_range

    def copy_file_range(*args):
        calls.append(args)
        if kernel == "refuses":
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(*args)

    monkeypatch.setattr(chunked.os, "copy_file_range", copy_file_range)
    monkeypatch.setattr(chunked, "_KERNEL_COPY", kernel != "absent")
    release, result = _built(with_exemplars=True)
    formats = FormatOptions(frames=read_frames(release))
    expected, _, _ = _whole(tmp_path / "whole", result, formats)
    split_lines = [SplitLines(name, list(data.lines), data.starts) for name, data in result.splits.items()]
    written = write_splits(tmp_path / "chunked", split_lines, FORMATS, formats, jobs=2, chunk_sets=7)
    assert written.outputs == expected
    assert {p.name: sha256_file(p) for p in (tmp_path / "chunked").iterdir()} == expected
    assert len(calls) == {"copies": len(calls), "absent": 0, "refuses": 1}[kernel] and (kernel != "copies" or calls)
    assert chunked._KERNEL_COPY == (kernel == "copies")


def test_copy_range_passes_on_an_error_that_is_not_a_refusal(tmp_path, monkeypatch):
    import errno  # noqa: PLC0415
    import os  # noqa: PLC0415

    from pyfn.formats import chunked  # noqa: PLC0415

    def full(*_):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(chunked.os, "copy_file_range", full)
    monkeypatch.setattr(chunked, "_KERNEL_COPY", True)
    (tmp_path / "in").write_bytes(b"abc")
    with open(tmp_path / "in", "rb") as source, open(tmp_path / "out", "wb") as out:
        with pytest.raises(OSError, match="No space"):
            chunked.copy_range(source.fileno(), out.fileno(), 0, b"abc")
    assert chunked._KERNEL_COPY


def test_lines_missing_from_a_spool_file_are_an_error_naming_it(tmp_path):
    from pyfn.formats import chunked  # noqa: PLC0415
    from pyfn.spool import SpoolReader  # noqa: PLC0415

    spooled = tmp_path / "1.spool"
    spooled.write_bytes(b'{"a": 1}')
    with pytest.raises(PyfnError, match=r"1\.spool: ends early \(2 of 10 bytes from 0 missing\)"):
        with contextlib.ExitStack() as stack, SpoolReader() as reader:
            chunked._Appender(tmp_path / "out", stack).add_spooled("train.jsonl", reader, (str(spooled), 0, 10))
    assert not list((tmp_path / "out").glob("*"))  # nothing left, not even the temporary file
