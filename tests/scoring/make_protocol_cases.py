"""Record the peers' own numbers for the named protocols (``protocol_reference.json``).

    python tests/scoring/make_protocol_cases.py DATA --peer-python VENV/bin/python --peer-src SRC \
        --framenet FNDATA15_DIR

``DATA`` is a conversion of FN 1.5 as the ``fn15_std`` fixture makes it (``pyfn convert --to jsonl
semeval --splits all --exclude-frames 398``): its ``test.gold.xml`` is the gold, ``test.jsonl`` the sets
the predictions of :mod:`protocol_cases` are made from. For each case this writes, from pyfn's reading
of the gold and predicted XML (the same reading the protocols use), the files each peer reads: CoNLL
blocks for Open-SESAME's ``read_conll``, span-finder's JSON trees, FST's sets; then runs
``peers/run_peers.py`` in the peers' scratch environment and stores what their code printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from protocol_cases import CASES, write_cases  # noqa: E402

from pyfn.formats import jsonl  # noqa: E402
from pyfn.scoring.protocols import fst, sesame, spanfinder  # noqa: E402
from pyfn.scoring.protocols.base import by_target, read_pair  # noqa: E402


def _block(sentence_no: int, toks, s, fes) -> str:  # noqa: ANN001
    tags = ["O"] * len(toks)
    for name, a, b in fes:
        if a == b:
            tags[a] = f"S-{name}"
        else:
            tags[a] = f"B-{name}"
            for i in range(a + 1, b + 1):
                tags[i] = f"I-{name}"
    lines = []
    for tok, tag in zip(toks, tags):
        on = tok.index in s.target
        lu, frame = (s.aset.lu_name, s.aset.frame_name) if on else ("_", "_")
        lines.append(f"{tok.index + 1}\t{tok.text}\t_\t_\t_\t_\t{sentence_no}\t_\t_\t_\t_\t_\t{lu}\t{frame}\t{tag}\n")
    return "".join(lines) + "\n"


def export(gold: Path, pred: Path, target: Path, name: str) -> None:
    """The peers' input files for one case."""
    gold_blocks, pred_blocks = [], []
    paired = read_pair(gold, pred)
    for sentence in paired.sentences:
        for g, p in by_target(sentence, Counter()):
            if sesame.overlapping(g.fes):
                continue
            gold_blocks.append(_block(sentence.index, sentence.tokens, g, g.fes))
            pred_blocks.append(_block(sentence.index, sentence.tokens, g, p.fes if p is not None else ()))
    (target / f"{name}.sesame.gold.conll").write_text("".join(gold_blocks))
    (target / f"{name}.sesame.pred.conll").write_text("".join(pred_blocks))

    def events(sets) -> list:  # noqa: ANN001
        return [{"span": [a, b], "label": frame, "children": [{"span": [x, y], "label": fe} for x, y, fe in args]}
                for a, b, frame, args in spanfinder.tree(sets, Counter(), "x")]

    with (target / f"{name}.spanfinder.jsonl").open("w") as out:
        for sentence in paired.sentences:
            out.write(json.dumps({"gold": events(sentence.gold), "pred": events(sentence.pred)}) + "\n")
    with (target / f"{name}.fst.jsonl").open("w") as out:
        for sentence in paired.sentences:
            for g, p in by_target(sentence, Counter()):
                def fes(s):  # noqa: ANN001, ANN202
                    return [[a, b + 1, n] for n, a, b in s.fe_chars]  # NLTK's offsets: end exclusive
                out.write(json.dumps({
                    "text": sentence.text, "frame": g.aset.frame_name,
                    "trigger_locs": [lb.start for lb in g.aset.layer_labels("Target") if lb.is_overt],
                    "gold": fes(g), "pred": fes(p) if p is not None else None}) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--peer-python", required=True)
    parser.add_argument("--peer-src", required=True, type=Path)
    parser.add_argument("--framenet", required=True, type=Path, help="FN 1.5 extracted (frame/, frameIndex.xml)")
    parser.add_argument("--keep", type=Path, help="keep the exported files here")
    args = parser.parse_args()
    sets = list(jsonl.read(args.data / "test.jsonl"))
    gold = args.data / "test.gold.xml"
    work = args.keep or Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    preds = write_cases(sets, work)
    for name, path in preds.items():
        export(gold, path, work, name)
    peers = subprocess.run(
        [args.peer_python, str(HERE / "peers" / "run_peers.py"), "--src", str(args.peer_src), "--framenet",
         str(args.framenet), "--cases", str(work), "--names", *CASES], check=True, capture_output=True, text=True)
    record = {
        "gold": {"file": "test.gold.xml of fn15_std", "sha256": hashlib.sha256(gold.read_bytes()).hexdigest()},
        "predictions": {name: hashlib.sha256(p.read_bytes()).hexdigest() for name, p in preds.items()},
        "peers": {
            "sesame": {"repo": sesame.SOURCE.repo, "commit": sesame.SOURCE.commit, "file": sesame.SOURCE.file},
            "spanfinder": {"repo": spanfinder.SOURCE.repo, "commit": spanfinder.SOURCE.commit,
                           "file": spanfinder.SOURCE.file},
            "fst": {"repo": fst.SOURCE.repo, "commit": fst.SOURCE.commit, "file": fst.SOURCE.file},
        },
        "results": json.loads(peers.stdout),
    }
    (HERE / "protocol_reference.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(preds)} cases in {HERE / 'protocol_reference.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
