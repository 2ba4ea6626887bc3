"""Checks that every relative link and image in README.md, Benchmarks/README.md and docs/ points at a file that exists.

Knowledge moves between README and docs/ by reader; a moved section must not leave a dead link behind.
Usage: scripts/check-links.py   (exit 1 and one line per dead link)
"""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
pages = [os.path.join(root, "README.md"), os.path.join(root, "Benchmarks", "README.md")]
for folder, _, names in os.walk(os.path.join(root, "docs")):
    pages += [os.path.join(folder, name) for name in names if name.endswith(".md")]
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
dead = []
for page in sorted(pages):
    text = open(page, encoding="utf-8").read()
    # Links inside code blocks are examples, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in link.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(page), path))):
            dead.append(f"{os.path.relpath(page, root)}: {target}")
for line in dead:
    print(f"dead link: {line}")
print(f"{len(pages)} pages checked, {len(dead)} dead links")
sys.exit(1 if dead else 0)
