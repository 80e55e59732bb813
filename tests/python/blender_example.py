"""blender_example.py — make test-blender: the README's Blender example
(the ```python block marked <!-- blender -->) run by Debian's blender,
headless, with PYTHONPATH holding the module and NG_ROOT the repository. It
must make a grid whose vertices stand at the heights of the terrain's pixels
under them, times the example's 0.4. Exit 1 on failure
(blender --python-exit-code 1).
"""
import os
import sys

import bpy
import numpy as np

ROOT = os.environ["NG_ROOT"]
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import noisegraph  # noqa: E402
import readme_blocks  # noqa: E402

found = readme_blocks.blocks(ROOT, blender=True)
assert len(found) == 1, f"README.md: {len(found)} blocks marked <!-- blender -->, not 1"
line, code = found[0]
os.chdir(ROOT)
before = set(bpy.data.objects.keys())
exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})
new = [bpy.data.objects[k] for k in bpy.data.objects.keys() if k not in before]
assert len(new) == 1 and new[0].type == "MESH", f"the example made {new}"
mesh = new[0].data
co = np.empty(len(mesh.vertices) * 3, np.float32)
mesh.vertices.foreach_get("co", co)
co = co.reshape(-1, 3)
n = 128
h = noisegraph.render("graphs/terrain.lua", size=n)[:, :, 0]
assert len(mesh.vertices) == n * n, f"{len(mesh.vertices)} vertices, not {n * n}"
# the vertex at x, y in [-1, 1] stands on pixel (column, row from the top)
col = np.rint((co[:, 0] + 1) / 2 * (n - 1)).astype(int)
row = n - 1 - np.rint((co[:, 1] + 1) / 2 * (n - 1)).astype(int)
assert np.allclose(co[:, 2], h[row, col] * 0.4, atol=1e-6), "the grid's heights are not the terrain's"
assert co[:, 2].max() - co[:, 2].min() > 0.1, "the grid is flat"
print(f"blender_example.py: README.md:{line} made a grid of {len(mesh.vertices)} vertices in Blender "
      f"{bpy.app.version_string}, heights {co[:, 2].min():.3f} to {co[:, 2].max():.3f}")
