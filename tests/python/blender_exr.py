"""blender_exr.py — make test-blender: Debian's Blender (3.4), headless,
imports noisegraph's EXR files as a studio's artist would (issue 26):
- a named grey output's file (channel Y) loads as an image whose pixels
  are the render's heights, not black;
- the multi-layer file of several named outputs (channels height.Y,
  N.R, N.G, N.B): Blender's compositor offers its layers, height and N, as
  outputs of an Image node, and each layer routed to the composite gives
  the render's samples bit for bit (the composite saved as a 32-bit float
  EXR and loaded back);
- the multi-part file (--exr-layout parts) likewise: its parts' channels
  keep the layer names, so Blender sees the same layers.
The samples it compares against come from the Python module (PYTHONPATH),
the files from the CLI (NG_BIN). Exit 1 on failure (--python-exit-code 1).
"""
import os
import subprocess
import sys
import tempfile

import bpy
import numpy as np

import noisegraph

BIN = os.environ["NG_BIN"]
SCRIPT = """local h = ng.perlin{element_size = 11}:fit(-1, 1, -2, 30)
return {height = h, N = ng.perlin{output = "vector", element_size = 7}}
"""
W, H = 96, 64


def rgba(img):
    """an image's pixels as (H, W, 4), top row first (Blender's are bottom up)"""
    px = np.array(img.pixels[:], np.float32).reshape(img.size[1], img.size[0], img.channels)
    return px[::-1]


def composite(path, layer, tmp):
    """layer of the multi-layer EXR at path through Blender's compositor: the
    composite's RGBA, saved as a float EXR and loaded back"""
    sc = bpy.context.scene
    sc.render.resolution_x, sc.render.resolution_y, sc.render.resolution_percentage = W, H, 100
    sc.use_nodes = True
    tree = sc.node_tree
    for n in list(tree.nodes):
        tree.nodes.remove(n)
    node = tree.nodes.new("CompositorNodeImage")
    node.image = bpy.data.images.load(path, check_existing=True)
    names = [o.name for o in node.outputs]
    assert "height" in names and "N" in names, f"Blender's Image node offers {names}, not the layers height and N"
    out = tree.nodes.new("CompositorNodeComposite")
    out.use_alpha = False
    tree.links.new(node.outputs[layer], out.inputs["Image"])
    bpy.ops.render.render()
    st = sc.render.image_settings
    st.file_format, st.color_depth, st.exr_codec = "OPEN_EXR", "32", "ZIP"
    saved = os.path.join(tmp, f"composite_{os.path.basename(path)}_{layer}.exr")
    bpy.data.images["Render Result"].save_render(saved)
    return rgba(bpy.data.images.load(saved))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "layers.lua")
        with open(script, "w") as f:
            f.write(SCRIPT)
        layered, grey = os.path.join(tmp, "layered.exr"), os.path.join(tmp, "grey.exr")
        parts = os.path.join(tmp, "parts.exr")
        size = f"{W}x{H}"
        subprocess.run([BIN, "render", script, "-o", layered, "--size", size], check=True)
        subprocess.run([BIN, "render", script, "-o", parts, "--size", size, "--exr-layout", "parts"], check=True)
        subprocess.run([BIN, "render", script, "--only", "height", "-o", grey, "--size", size], check=True)
        height = noisegraph.render(script, size=(W, H), output="height")[:, :, 0]
        normal = noisegraph.render(script, size=(W, H), output="N")
        assert np.ptp(height) > 1, "the heights are flat"

        img = rgba(bpy.data.images.load(grey))
        assert img.shape[:2] == (H, W), f"the grey file loads as {img.shape}"
        for c in range(3):
            assert np.array_equal(img[:, :, c], height), f"channel {c} of the grey file is not the heights"

        for path in (layered, parts):
            got = composite(path, "height", tmp)
            assert np.array_equal(got[:, :, 0], height), f"{path}: the layer height is not the heights"
            got = composite(path, "N", tmp)
            assert np.array_equal(got[:, :, :3], normal), f"{path}: the layer N is not the vector output"
        print(f"blender_exr.py: Blender {bpy.app.version_string} read the Y file and the layers height and N "
              f"of the multi-layer and the multi-part EXR, {W}x{H}, bit for bit")


main()
