"""``pyfn score``: the SemEval-2007 scorer, frame-identification accuracy, the evaluation protocols and the error
analysis (``--breakdown``), each a mode whose options :data:`MODES` lists."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, Modes, Subparsers
from pyfn.errors import PyfnError, UsageError

PROTOCOL_NAMES = ("semeval07", "sesame-labeled", "sesame-unlabeled", "sesame-token", "spanfinder", "fst-text",
                  "lexfilter:train", "lexfilter:full", "lexfilter:none")
"""The keys of :data:`pyfn.scoring.protocols.PROTOCOLS` (kept here so that ``--help`` imports no scorer)."""
REPORT = ("--gold", "--pred", "--json", "--output")
SCORER = ("--mode", "--exact", "--corrected", "--span-match", "--parse", "--per-sentence")
LEXICON = ("--framenet", "--frames", "--relations")
FRAME_SCORES = ("--lu-frames", "--frame-scores", "--release-lu-frames")
MODES = Modes(
    takes={
        "--mode semeval/frames/argsonly": (*REPORT, *SCORER, *LEXICON, "--strict"),
        "--mode frameid": (*REPORT, "--mode", "--lu-frames", "--strict"),
        "--protocol": (*REPORT, "--protocol", *LEXICON, *FRAME_SCORES),
        "--all-protocols": (*REPORT, "--all-protocols", *LEXICON, *FRAME_SCORES),
        "--breakdown": (*REPORT, "--breakdown", "--mode", *LEXICON, "--train", "--html", "--strict"),
        "--breakdown --mode frameid": (*REPORT, "--breakdown", "--mode", "--train", "--html", "--strict"),
    },
    why={
        ("--protocol", "--all-protocols", "--breakdown"): "--protocol NAME, --all-protocols and --breakdown are "
                                                          "modes of their own: give one",
        SCORER: "--mode, --exact, --corrected, --span-match, --parse and --per-sentence set the SemEval scorer",
        ("--train", "--html"): "--train and --html go with --breakdown",
        ("--frame-scores", "--release-lu-frames"): "--frame-scores and --release-lu-frames go with --protocol "
                                                   "lexfilter:* or --all-protocols",
        ("--lu-frames",): "--lu-frames goes with --mode frameid and the lexfilter:* protocols",
        LEXICON: "--framenet, --frames and --relations give the frame relations and FE coreness, which frame "
                 "identification does not read",
        ("--strict",): "--strict stops the SemEval scorer, frame-id accuracy or --breakdown at the first malformed "
                       "sentence",
    },
    notes={"--protocol": "a protocol fixes its own settings", "--all-protocols": "a protocol fixes its own settings",
           "--breakdown --mode frameid": "it analyses frames only: it takes no --framenet/--frames/--relations"},
)
"""Which options each mode of ``pyfn score`` takes; any other option set is refused."""


def mode_of(args: argparse.Namespace) -> str:
    """The mode the options select (a key of :data:`MODES`)."""
    if args.breakdown:
        return "--breakdown --mode frameid" if args.mode == "frameid" else "--breakdown"
    if args.protocol:
        return "--protocol"
    if args.all_protocols:
        return "--all-protocols"
    return "--mode frameid" if args.mode == "frameid" else "--mode semeval/frames/argsonly"


def lexicon(args: argparse.Namespace):
    """The scorer lexicon of --framenet, or --frames and --relations, and how the signature names it."""
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.scoring.scorer_lexicon import scorer_lexicon  # noqa: PLC0415

    framenet = resolve_source(args.framenet)[0] if args.framenet else None
    return scorer_lexicon(framenet=framenet, frames=args.frames, relations=args.relations)


def add_lexicon_options(p: argparse.ArgumentParser) -> None:
    """--framenet, or --frames and --relations: the scorer lexicon (:func:`lexicon`)."""
    p.add_argument("--framenet", help="FrameNet release (dir or zip; 'sample': the bundled sample) whose frame/ "
                   "and frRelation.xml give FE coreness and the relations of partial credit")
    p.add_argument("--frames", help="frames.xml as the Perl scorer reads it (with --relations)")
    p.add_argument("--relations", help="frRelations.xml as the Perl scorer reads it (with --frames)")



def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn score``."""
    p = sub.add_parser(
        "score",
        help="score parser output against gold SemEval XML (SemEval-2007 scorer, frame-id accuracy)",
        description=(
            "Score PRED against GOLD (SemEval-2007 XML). --mode semeval: frames and FEs jointly, as "
            "fnSemScore_modified.pl -l -n (--exact = its -e: no partial credit through frame relations); "
            "frames: targets and frames only (-t); argsonly: argument identification given gold frames "
            "(pyfn's score.argsonly.pl -a); frameid: frame-identification accuracy, total / ambiguous / "
            "no-lex, against the train-only lexicon (--lu-frames). Faithful to the Perl script by default "
            "(deterministic where it is not); --corrected fixes its same-span overwrite and pairs labels optimally. "
            "Sentences pair by SemEval sentence ID and must have the same text; a gold sentence without a "
            "prediction counts as missed, a predicted sentence outside gold against precision."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--gold", required=True, help="gold SemEval XML")
    p.add_argument("--pred", required=True, help="predicted SemEval XML")
    p.add_argument("--mode", default="semeval", choices=["semeval", "frames", "argsonly", "frameid"],
                   help="what is scored: frames and FEs jointly, targets and frames only, arguments given gold "
                   "frames, or frame-identification accuracy")
    p.add_argument("--exact", action="store_true", help="no partial credit (the script's -e)")
    p.add_argument("--corrected", action="store_true", help="documented fixes instead of the original's behaviour")
    p.add_argument("--span-match", default="exact", choices=["exact", "overlap", "head"],
                   help="FE spans: exact (default, the script's), overlap (shared tokens over the longer span, "
                   "Kim et al. 2010) or head (same head token; needs --parse)")
    p.add_argument("--parse", help="CoNLL-U/CoNLL-X parse of the gold sentences, block k = sentence k "
                   "(--span-match head; default: none)")
    add_lexicon_options(p)
    p.add_argument("--lu-frames", help="lu_frames.tsv of `pyfn generate` (train-only lexicon), for --mode frameid "
                   "and --protocol lexfilter:train")
    p.add_argument("--per-sentence", action="store_true", help="also print points per sentence")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--output", help="write the JSON object to this file (atomically) instead of printing it")
    p.add_argument("--strict", action="store_true", help="stop at the first malformed sentence or set instead of "
                   "skipping and counting it (the script's documented traps and unpaired sentences never stop it)")
    p.add_argument("--protocol", choices=list(PROTOCOL_NAMES),
                   help="score as a published evaluation does, with its protocol card (see docs/PROTOCOLS.md); "
                   "default: the SemEval-2007 scorer as --mode says")
    p.add_argument("--all-protocols", action="store_true",
                   help="one table: the same predictions under every protocol (lexfilter:* only with --frame-scores, "
                   "each with the lexicon it needs)")
    p.add_argument("--frame-scores", metavar="FILE",
                   help="per-frame scores of the predicted targets ({split}.frame_scores.jsonl of `pyfn baseline "
                   "frameid-logreg --frame-scores`), for the lexfilter:* protocols")
    p.add_argument("--release-lu-frames", metavar="FILE",
                   help="release_lu_frames.tsv of `pyfn generate --release-lexicon`, for --protocol lexfilter:full "
                   "(lexfilter:train reads --lu-frames)")
    p.add_argument("--breakdown", action="store_true",
                   help="error analysis (docs/BREAKDOWN.md): frame accuracy per frame and by the LU's train count, "
                   "the most confused frames, argument P/R/F1 per FE and per coreness, and the sentences with an error; "
                   "--mode says what is analysed (frameid: frames; argsonly: arguments; semeval: both)")
    p.add_argument("--train", help="with --breakdown: train JSONL of `pyfn convert` whose annotation sets per LU name "
                   "give the LU-frequency buckets (default: no buckets)")
    p.add_argument("--html", help="with --breakdown: also write the analysis as a self-contained HTML page to this file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the options against the mode they select (:data:`MODES`), score, print or write the result."""
    from pyfn.scoring.semeval import score  # noqa: PLC0415
    from pyfn.scoring.signature import score_signature  # noqa: PLC0415

    mode = mode_of(args)
    if mode == "--mode frameid" and not args.lu_frames:
        raise UsageError("--mode frameid needs --lu-frames lu_frames.tsv (from `pyfn generate`)")
    MODES.check(args, mode)
    if args.breakdown:
        return _score_breakdown(args)
    if args.protocol or args.all_protocols:
        return _score_protocols(args)
    if args.mode == "frameid":
        return _score_frameid(args)
    scorer_lexicon, rel = lexicon(args)
    result = score(Path(args.gold), Path(args.pred), lexicon=scorer_lexicon, mode=args.mode, exact=args.exact,
                   corrected=args.corrected, strict=args.strict, span_match=args.span_match,
                   parses=_heads(Path(args.parse)) if args.parse else None)
    signature = score_signature(result.variant, Path(args.gold), rel)
    if args.json or args.output:
        out = {
            "precision": result.precision, "recall": result.recall, "f1": result.f1,
            "matched": result.matched, "gold": result.gold, "predicted": result.predicted,
            "signature": signature, "sentences": result.sentence_counts(), "problems": result.problem_counts(),
            "notes": result.note_counts(),
        }
        if args.per_sentence:
            out["per_sentence"] = [vars(s) for s in result.per_sentence]
        return emit_json(out, args)
    if args.per_sentence:
        for s in result.per_sentence:
            name = f"predicted sentence {s.index} (ID {s.id})" if s.status == "not_in_gold" else f"sentence {s.index}"
            status = "" if s.status == "scored" else "\t" + s.status.replace("_", " ")
            print(f"{name}\tmatched {s.matched:g}\tgold {s.gold:g}\tpredicted {s.predicted:g}{status}")
    _print_sentences(result.sentence_counts())
    print(f"P {result.precision:.5f}  R {result.recall:.5f}  F1 {result.f1:.5f}  "
          f"(matched {result.matched:g} / gold {result.gold:g} / predicted {result.predicted:g})  {signature}")
    for line in result.warnings():
        print(f"pyfn: warning: {line}", file=sys.stderr)
    return 0


def _score_protocols(args: argparse.Namespace) -> int:
    """``--protocol NAME`` (its measures and card) or ``--all-protocols`` (one table)."""
    from pyfn.scoring.protocols import FRAME_ID, FrameScores, run, run_all, table_rows  # noqa: PLC0415

    frame_id = args.protocol in FRAME_ID
    if args.protocol and not frame_id and (args.frame_scores or args.lu_frames or args.release_lu_frames):
        raise UsageError(f"--frame-scores, --lu-frames and --release-lu-frames go with lexfilter:*, "
                         f"not {args.protocol}")
    if not frame_id and not args.frame_scores and (args.lu_frames or args.release_lu_frames):
        raise UsageError("--lu-frames and --release-lu-frames go with --frame-scores here")
    fid = FrameScores(Path(args.frame_scores), Path(args.lu_frames) if args.lu_frames else None,
                      Path(args.release_lu_frames) if args.release_lu_frames else None) if args.frame_scores else None
    scorer_lexicon, rel = (None, "") if frame_id else lexicon(args)
    gold, pred = Path(args.gold), Path(args.pred)
    if args.protocol:
        result = run(args.protocol, gold, pred, lexicon=scorer_lexicon, lexicon_tag=rel, frame_scores=fid)
        if args.json or args.output:
            return emit_json(result.as_dict(), args)
        for m in result.measures:
            print(f"{m.name:9} P {m.precision:.5f}  R {m.recall:.5f}  F1 {m.f1:.5f}  "
                  f"(tp {m.counts.tp:g} / fp {m.counts.fp:g} / fn {m.counts.fn:g})")
        for line in result.card.lines():
            print(line)
        return 0
    assert scorer_lexicon is not None
    results = run_all(gold, pred, lexicon=scorer_lexicon, lexicon_tag=rel, frame_scores=fid)
    rows = table_rows(results)
    if args.json or args.output:
        return emit_json({"rows": rows, "cards": [r.card.as_dict() for r in results]}, args)
    print(f"{'protocol':17} {'measure':9} {'P':>8} {'R':>8} {'F1':>8}  {'tp':>9} {'fp':>9} {'fn':>9}")
    for row in rows:
        print(f"{row['protocol']:17} {row['measure']:9} {row['precision']:8.5f} {row['recall']:8.5f} "
              f"{row['f1']:8.5f}  {row['tp']:9g} {row['fp']:9g} {row['fn']:9g}")
    for res in results:
        print(res.card.signature)
    return 0


def _score_breakdown(args: argparse.Namespace) -> int:
    """``--breakdown``: the error analysis as a summary, JSON (``--json``/``--output``) and HTML (``--html``)."""
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.fileio import write_text  # noqa: PLC0415
    from pyfn.formats import jsonl  # noqa: PLC0415
    from pyfn.scoring.breakdown import breakdown_files, summary_lines  # noqa: PLC0415
    from pyfn.scoring.breakdown_html import page  # noqa: PLC0415
    from pyfn.scoring.signature import file_tag  # noqa: PLC0415

    for flag, value in (("--gold", args.gold), ("--pred", args.pred), ("--train", args.train)):
        if value and not Path(value).is_file():
            raise PyfnError(f"{flag} {value}: no such file")
    inventory = lexicon(args)[0].inventory if args.mode != "frameid" else None
    log = ProblemLog(strict=args.strict)
    train = list(jsonl.read(Path(args.train), log=ProblemLog(strict=True))) if args.train else None
    result = breakdown_files(Path(args.gold), Path(args.pred), mode=args.mode, inventory=inventory, train=train,
                             train_tag=file_tag(Path(args.train)) if args.train else None, log=log)
    if args.html:
        write_text(Path(args.html), page(result, f"Error analysis of {args.pred}"))
    if args.json or args.output:
        return emit_json(result, args)
    for line in summary_lines(result):
        print(line)
    return 0


def _print_sentences(counts: dict[str, int]) -> None:
    """One line: gold sentences scored, left without a prediction, and predicted sentences outside gold."""
    skipped = f", {counts['no_gold_points']} worth no points (skipped)" if counts.get("no_gold_points") else ""
    print(f"sentences: {counts['gold']} gold: {counts['scored']} scored{skipped}, {counts['missing']} without a "
          f"prediction and {counts['text_differs']} with another predicted text (counted as missed); "
          f"{counts['not_in_gold']} predicted sentences not in gold")


def _heads(path: Path) -> list[list[int]]:
    """The HEAD column of every block of a CoNLL file (a block without heads is an error naming it)."""
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.formats.conll import read_conll  # noqa: PLC0415

    out = []
    for number, anns, _ in read_conll(path, log=ProblemLog(strict=True)):
        if any(a.head is None for a in anns):
            raise PyfnError(f"{path}: sentence {number} has no dependency heads")
        out.append([a.head for a in anns])
    return out


def emit_json(obj: dict, args: argparse.Namespace) -> int:
    """Print ``obj`` as JSON, or write it to ``--output`` atomically."""
    import json  # noqa: PLC0415

    from pyfn.fileio import write_text  # noqa: PLC0415

    text = json.dumps(obj, indent=2) + "\n"
    if args.output:
        write_text(Path(args.output), text)
    else:
        print(text, end="")
    return 0


def _score_frameid(args: argparse.Namespace) -> int:
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.scoring.frameid import frame_id_files, read_lu_frames  # noqa: PLC0415
    from pyfn.scoring.signature import frameid_signature  # noqa: PLC0415

    log = ProblemLog(strict=args.strict)
    result = frame_id_files(Path(args.gold), Path(args.pred), read_lu_frames(Path(args.lu_frames)), log=log)
    signature = frameid_signature(Path(args.gold), Path(args.lu_frames))
    rows = {"total": result.total, "ambiguous": result.ambiguous, "no_lex": result.no_lex}
    assert result.pairing is not None
    counts = result.pairing.counts()
    if args.json or args.output:
        return emit_json({
            name: {"accuracy": acc.accuracy, "correct": acc.correct, "n": acc.n, "wilson_low": acc.low,
                   "wilson_high": acc.high} for name, acc in rows.items()
        } | {"signature": signature, "sentences": counts, "unaligned_predictions": result.unaligned_predictions,
             "problems": log.counts()}, args)
    _print_sentences(counts)
    for name, acc in rows.items():
        print(f"{name:9} {acc.accuracy:.4f}  ({acc.correct}/{acc.n}; 95% Wilson {acc.low:.4f}-{acc.high:.4f})")
    print(signature)
    for line in result.warnings():
        print(f"pyfn: warning: {line}", file=sys.stderr)
    if result.unaligned_predictions:
        print(f"pyfn: warning: {result.unaligned_predictions} predicted annotation sets answer no gold target "
              "(another target, or a sentence that pairs with no gold sentence)", file=sys.stderr)
    return 0


