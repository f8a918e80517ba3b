#!/usr/bin/env python3
"""Every public symbol the package declares has a documentation comment.

Reads the symbol graphs `swift package dump-symbol-graph --minimum-access-level public` writes and lists each symbol
whose declaration lies in this package's Sources/ (so not the conformances the compiler synthesizes or a protocol's
default implementations) and which has no `///` comment. Exits 1 with the list when any is missing.
Usage: check-doc-coverage.py SYMBOLGRAPH_DIR MODULE...
"""
import json
import os
import sys


def main() -> int:
    directory, modules = sys.argv[1], set(sys.argv[2:])
    sources = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", "Sources"))
    missing, checked = [], 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".symbols.json") or name.split("@")[0].split(".")[0] not in modules:
            continue
        graph = json.load(open(os.path.join(directory, name)))
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            uri = symbol.get("location", {}).get("uri", "")
            path = os.path.realpath(uri.removeprefix("file://"))
            if not path.startswith(sources + os.sep):
                continue
            checked += 1
            comment = symbol.get("docComment")
            if comment and "".join(line.get("text", "") for line in comment.get("lines", [])).strip():
                continue
            line = symbol["location"]["position"]["line"] + 1
            title = ".".join(symbol["pathComponents"])
            missing.append(f"{os.path.relpath(path, os.path.dirname(sources))}:{line}: {title} has no documentation comment")
    for entry in sorted(set(missing)):
        print(entry)
    print(f"{checked} public symbols declared in Sources/, {len(set(missing))} without documentation")
    if checked == 0:
        print("no symbols read: run `swift package dump-symbol-graph --minimum-access-level public` first")
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
