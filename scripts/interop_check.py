#!/usr/bin/env python3
"""Interoperability check for the bundled demo models (issue 7, item 5) and inoculated ones.

Proof that what tabprobe writes is a real Hugging Face checkpoint: for each model folder it
  1. asks the product (`tabprobe evaluate --logits`) for the token ids and logits of the first
     N INFOTABS dev pairs, premises linearized as the model was trained;
  2. loads the same folder with `transformers` (AutoTokenizer, AutoModelForSequenceClassification,
     float32, eager attention, CPU) - nothing is downloaded;
  3. checks that transformers' tokenizer gives the same ids, and that transformers' logits on
     those ids equal the product's within --tolerance (1e-4 by default).
It prints the max |delta logit| per model and exits non-zero if any check fails.

Needs the pinned packages of scripts/requirements-interop.txt (torch, transformers from PyPI)
and a Rust toolchain (it builds the cli unless --tabprobe names a built binary). Not part of
scripts/test.sh: CI has no torch.

Usage (from the repository root):
  python3 -m pip install -r scripts/requirements-interop.txt
  python3 scripts/interop_check.py                     # both models of public/models/index.json
  python3 scripts/interop_check.py --pairs 50 --tabprobe target/release/tabprobe
  python3 scripts/interop_check.py --inoculated inoculated/   # also `tabprobe inoculate`'s output
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def tabprobe_command(binary):
    """The command that runs the cli: a given binary, or cargo's release build (the CLI's
    profile, opt-level 3; the site's size-optimised wasm has its own `web` profile)."""
    if binary:
        return [binary]
    return ["cargo", "run", "--release", "-q", "-p", "tabprobe-cli", "--"]


def product_outputs(cmd, folder, linearization, infotabs, pairs):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "logits.jsonl")
        subprocess.run(
            cmd
            + ["evaluate", "--model", folder, "--infotabs", infotabs,
               "--linearization", linearization, "--splits", "dev",
               "--limit", str(pairs), "--logits", out],
            check=True, stdout=subprocess.DEVNULL,
        )
        with open(out, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]


def check_model(cmd, root, entry, infotabs, pairs, tolerance):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = os.path.join(root, entry["path"])
    rows = product_outputs(cmd, folder, entry["linearization"], infotabs, pairs)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(
        folder, dtype=torch.float32, attn_implementation="eager"
    )
    model.eval()
    max_len = model.config.max_position_embeddings - model.config.pad_token_id - 1
    id_mismatches = 0
    max_delta = 0.0
    with torch.no_grad():
        for i, row in enumerate(rows):
            enc = tokenizer(row["premise"], row["hypothesis"], truncation="only_first",
                            max_length=max_len)
            if enc["input_ids"] != row["input_ids"]:
                id_mismatches += 1
                if id_mismatches <= 3:
                    print(f"  pair {i + 1}: token ids differ\n    transformers {enc['input_ids']}\n"
                          f"    tabprobe     {row['input_ids']}")
            ids = torch.tensor([row["input_ids"]])
            logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0]
            delta = (logits - torch.tensor(row["logits"])).abs().max().item()
            max_delta = max(max_delta, delta)
    ok = id_mismatches == 0 and max_delta <= tolerance
    print(f"{entry['id']}: {len(rows)} dev pairs, token ids equal: "
          f"{len(rows) - id_mismatches}/{len(rows)}, max |delta logit| = {max_delta:.3g} "
          f"(tolerance {tolerance:g}) -> {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default="public", help="site root holding models/index.json")
    ap.add_argument("--infotabs", default="../shared/data/infotabs/data")
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--tabprobe", help="a built tabprobe binary (default: cargo run)")
    ap.add_argument("--inoculated", help="also check every n<size>/ checkpoint folder that "
                    "`tabprobe inoculate --out DIR` wrote in DIR (fine-tuned from the manifest's "
                    "default model, read with its linearization)")
    args = ap.parse_args()
    if not os.path.isdir(args.infotabs):
        print(f"skipped: INFOTABS data not found at {args.infotabs}")
        return 0
    with open(os.path.join(args.root, "models", "index.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    cmd = tabprobe_command(args.tabprobe)
    results = [check_model(cmd, args.root, m, args.infotabs, args.pairs, args.tolerance)
               for m in manifest["models"]]
    if args.inoculated:
        base = next(m for m in manifest["models"] if m.get("role") == "default")
        folders = sorted(n for n in os.listdir(args.inoculated)
                         if n.startswith("n") and os.path.isdir(os.path.join(args.inoculated, n)))
        if not folders:
            print(f"{args.inoculated}: no n<size>/ folder to check")
            results.append(False)
        for name in folders:
            entry = {"id": f"inoculated {name}", "linearization": base["linearization"],
                     "path": os.path.abspath(os.path.join(args.inoculated, name))}
            results.append(check_model(cmd, args.root, entry, args.infotabs, args.pairs,
                                       args.tolerance))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
