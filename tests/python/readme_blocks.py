"""readme_blocks.py — the ```python blocks of README.md, for the Python tests:
blocks(root, blender) gives (line, code) of each block, those marked
`<!-- blender -->` on the line before when blender is true, the others when
false. The README is read at test time; no example is copied here.
"""
import os


def blocks(root, blender):
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    found, k = [], 0
    while k < len(lines):
        if lines[k].strip() == "```python":
            end = k + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            marked = k > 0 and lines[k - 1].strip() == "<!-- blender -->"
            if marked == blender:
                found.append((k + 1, "\n".join(lines[k + 1:end])))
            k = end
        k += 1
    return found
