#!/usr/bin/env python3
"""Independent re-implementation of INFOTABS' table-as-paragraph preprocessing
(`scripts/preprocess/json_to_para.py` in utahnlp/infotabs-code), written from the behaviour
tabprobe's docs/data-formats.md#linearization documents, to produce golden text for `tests/linearize_infotabs.rs`.

Behaviour reproduced (the reference script's quirks):
- tables are read with key order kept (OrderedDict semantics: a repeated key keeps its first
  position and its last value), the "title" entry is removed and title[0] is the title;
- the verb is "are" unless the key is empty and the row has one value (the script's plural
  test, inflect.plural_noun(key), is truthy for every non-empty key);
- a row whose concatenated values contain a YYYY-MM-DD date reads "<title> was <key> on ...";
- values are used as stored; lists read "a, b, and c" (two values: "a, and b");
- every sentence ends with ". ", including the last.

Only the Python standard library is needed. Usage:
    python3 infotabs_para_reimpl.py <tables/json dir> > infotabs_para_golden.jsonl
"""
import datetime
import json
import os
import re
import sys
from collections import OrderedDict

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def has_date(text):
    m = DATE.search(text)
    if not m:
        return False
    datetime.datetime.strptime(m.group(), "%Y-%m-%d")  # raises on a non-date, like the script
    return True


def paragraph(table):
    title = table["title"][0]
    out = []
    for key, values in table.items():
        if key == "title":
            continue
        if len(values) > 1 or key != "":
            head = (title + " was " + key + " on ") if has_date("".join(values)) \
                else ("The " + key + " of " + title + " are ")
            body = "".join(v + ", " for v in values[:-1])
            tail = ("and " + values[-1]) if len(values) > 1 else values[-1]
            out.append(head + body + tail + ". ")
        elif has_date(values[0]):
            out.append(title + " was " + key + " on " + values[0] + ". ")
        else:
            out.append("The " + key + " of " + title + " is " + values[0] + ". ")
    return "".join(out)


def selected(names):
    """Every 10th table by sorted id, plus tables with known edge cases."""
    ids = sorted(n[:-5] for n in names if n.endswith(".json"))
    extra = {"T1264", "T996", "T2172", "T1482", "T1571", "T1628"}
    return [t for i, t in enumerate(ids) if i % 10 == 0 or t in extra]


def main():
    root = sys.argv[1]
    for tid in selected(os.listdir(root)):
        with open(os.path.join(root, tid + ".json"), encoding="utf-8") as f:
            table = json.load(f, object_pairs_hook=OrderedDict)
        print(json.dumps({"table_id": tid, "premise": paragraph(table)}, ensure_ascii=False))


if __name__ == "__main__":
    main()
