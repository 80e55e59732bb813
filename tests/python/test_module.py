"""test_module.py — `import noisegraph` (make python), run by `make test-python`
under Debian's /usr/bin/python3 and numpy, with NG_BIN (the CLI) and NG_ROOT
(the repository) set; PYTHONPATH holds the module.

What users rely on: the same bits as the CLI's PFM and .r16 files, regions
that stitch, volumes, arrays that wrap the render's buffer (no copy),
parameters and the graph compiled once, sampling at points, the GIL released
during a render, cancellation (a callable, KeyboardInterrupt, the time
limit), errors as exceptions with the script's file:line, and wrong types,
sizes and names as clear exceptions, never a crash. Under SAN=1 (NG_SAN set)
the renders are smaller.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import _thread

import numpy as np

import noisegraph as ng

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readme_blocks  # noqa: E402

BIN = os.environ["NG_BIN"]
ROOT = os.environ["NG_ROOT"]
SAN = bool(os.environ.get("NG_SAN"))
TERRAIN = os.path.join(ROOT, "graphs", "terrain.lua")
COLOUR = os.path.join(ROOT, "graphs", "terrain_colour.lua")
CLOUD = os.path.join(ROOT, "graphs", "cloud_volume.lua")
# A render that takes seconds (to be stopped): 6 octaves of warped noise.
SLOW = "return ng.fbm{source = ng.warp{source = ng.perlin{}, by = ng.simplex{output = 'vector'}}, octaves = 12}"
SLOW_SIZE = 2048 if SAN else 8192

TMP = tempfile.mkdtemp(prefix="ngpy-test-")
failures = []


def test(fn):
    try:
        fn()
        print(f"ok   {fn.__name__}")
    except Exception as e:  # report every failing test, then fail
        failures.append(fn.__name__)
        print(f"FAIL {fn.__name__}: {type(e).__name__}: {e}")
    return fn


def cli(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    assert r.returncode == 0, f"noisegraph {' '.join(args)}: {r.stderr}"


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    c = 3 if kind == b"PF" else 1
    return data.reshape(h, w, c)[::-1]  # rows bottom to top in the file


def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), f"{type(e).__name__} '{e}' does not say '{w}'"
        return e
    raise AssertionError(f"no {exc.__name__} raised")


@test
def test_same_bits_as_cli_pfm():
    path = os.path.join(TMP, "t.pfm")
    cli("render", TERRAIN, "-o", path, "--size", "96x64", "--set", "seed=3", "--origin", "10,-20")
    a = ng.render(TERRAIN, size=(96, 64), params={"seed": 3}, origin=(10, -20))
    assert a.dtype == np.float32 and a.shape == (64, 96, 1), (a.dtype, a.shape)
    assert np.array_equal(a.view(np.uint32), read_pfm(path).view(np.uint32))
    path = os.path.join(TMP, "c.pfm")
    cli("render", COLOUR, "-o", path, "--size", "40x30", "--threads", "2")
    b = ng.render(COLOUR, size=(40, 30), threads=1)
    assert b.shape == (30, 40, 3)
    assert np.array_equal(b.view(np.uint32), read_pfm(path).view(np.uint32))


@test
def test_bits_16_and_8_as_cli():
    path = os.path.join(TMP, "t.r16")
    cli("render", TERRAIN, "-o", path, "--size", "50x20")
    a = ng.render(TERRAIN, size=(50, 20), bits=16)
    assert a.dtype == np.uint16 and a.shape == (20, 50, 1)
    assert np.array_equal(a.ravel(), np.fromfile(path, dtype="<u2"))
    f = ng.render(TERRAIN, size=(50, 20))
    b = ng.render(TERRAIN, size=(50, 20), bits=8)
    assert b.dtype == np.uint8
    assert np.array_equal(b, np.floor(np.clip(f.astype(np.float64), 0, 1) * 255 + 0.5).astype(np.uint8))


@test
def test_regions_stitch():
    full = ng.render(TERRAIN, size=(90, 70), threads=2)
    parts = [[ng.render(TERRAIN, size=(90, 70), region=(x, y, 45, 35), threads=1) for x in (0, 45)] for y in (0, 35)]
    joined = np.concatenate([np.concatenate(row, axis=1) for row in parts], axis=0)
    assert joined.shape == full.shape and np.array_equal(joined.view(np.uint32), full.view(np.uint32))


@test
def test_volume_and_its_regions():
    v = ng.render(CLOUD, size=(24, 20, 16), origin=(0, 0, 40), pixel_size=8)
    assert v.shape == (16, 20, 24, 1) and v.dtype == np.float32
    assert v.max() > 0, "the cloud volume is empty"
    w = ng.render(CLOUD, size=(24, 20, 16), origin=(0, 0, 40), pixel_size=8, region=(4, 2, 3, 10, 9, 8))
    assert np.array_equal(w, v[3:11, 2:11, 4:14])


@test
def test_array_wraps_the_render_buffer():
    a = ng.render(TERRAIN, size=64)
    assert not a.flags.owndata and a.flags.c_contiguous and a.flags.writeable
    base = a.base
    while isinstance(base, (memoryview, np.ndarray)) and not type(base).__name__ == "_Buffer":
        base = base.obj if isinstance(base, memoryview) else base.base
    assert type(base).__name__ == "_Buffer", f"the array's base is {type(a.base)}, not the render's buffer"
    del base
    a += 1  # the memory is ours to write; the buffer lives as long as the array


@test
def test_graph_compiled_once_new_params():
    g = ng.Graph(TERRAIN)
    names = [p["name"] for p in g.params()]
    assert names == ["scale", "warp", "seed"], names
    p = {d["name"]: d for d in g.params(params={"seed": 9})}
    assert p["seed"]["value"] == "9" and p["seed"]["set"] and p["seed"]["kind"] == "integer"
    assert p["scale"]["min"] == 1 and p["scale"]["max"] is None
    assert g.outputs() == [None]
    a = g.render(size=48, params={"seed": 1})
    b = g.render(size=48, params={"seed": 2})
    c = g.render(size=48, params={"seed": 1})
    assert not np.array_equal(a, b) and np.array_equal(a, c)
    assert np.array_equal(a, ng.render(TERRAIN, size=48, params={"seed": 1}))
    assert np.array_equal(ng.render(g, size=48, params={"seed": 2}), b)


@test
def test_script_text_and_outputs():
    s = 'return {a = ng.perlin{element_size = 30}, b = ng.constant(0.25)}'
    g = ng.Graph(s)
    assert sorted(g.outputs()) == ["a", "b"]
    b = g.render(size=8, output="b")
    assert np.all(b == np.float32(0.25))
    raises(ValueError, lambda: g.render(size=8), "several outputs", "a", "b")
    raises(ValueError, lambda: g.render(size=8, output="c"), "no output 'c'")


@test
def test_sample_at_points():
    img = ng.render(TERRAIN, size=(32, 16), origin=(5, 7), pixel_size=2)
    j, i = np.mgrid[0:16, 0:32]
    pts = np.stack([5 + (i + 0.5) * 2, 7 + (j + 0.5) * 2], axis=-1).reshape(-1, 2)
    s = ng.sample(TERRAIN, pts)
    assert s.shape == (32 * 16, 1) and s.dtype == np.float32
    assert np.allclose(s.reshape(16, 32, 1), img, atol=2e-6), np.abs(s.reshape(16, 32, 1) - img).max()
    g = ng.Graph(COLOUR)
    assert g.sample([[0.5, 0.5], [100.0, 3.0]]).shape == (2, 3)
    three = ng.sample("return ng.perlin{}", np.array([[1.0, 2.0, 3.0]]))
    assert three.shape == (1, 1) and -1 <= three[0, 0] <= 1


@test
def test_nodes_as_data():
    nodes = {n["name"]: n for n in ng.nodes()}
    assert "noise" in nodes and "fractal" in nodes and "warp" in nodes, sorted(nodes)
    params = {p["name"]: p for p in nodes["noise"]["params"]}
    assert "perlin" in params["type"]["choices"] and params["seed"]["kind"].startswith("integer")
    assert any(i["name"] == "source" for i in nodes["fractal"]["inputs"])
    assert {"name": "fbm", "param": "type", "value": "standard"} in nodes["fractal"]["shorthands"]


@test
def test_gil_released_while_rendering():
    ticks, out = [0], []
    t = threading.Thread(target=lambda: out.append(ng.render(TERRAIN, size=768 if SAN else 1536, threads=1)))
    t.start()
    while t.is_alive():
        ticks[0] += 1
        time.sleep(0.001)
    t.join()
    assert out and ticks[0] > 20, f"the main thread ran {ticks[0]} times during the render"


@test
def test_cancel_callable():
    calls = [0]

    def cancel():
        calls[0] += 1
        return calls[0] >= 3  # after about 0.15 s

    e = raises(ng.Cancelled, lambda: ng.render(SLOW, size=SLOW_SIZE, threads=2, cancel=cancel), "cancel")
    assert isinstance(e, ng.Error)
    raises(ZeroDivisionError, lambda: ng.render(SLOW, size=SLOW_SIZE, cancel=lambda: 1 / 0))


@test
def test_keyboard_interrupt_stops_the_render():
    # Python installs its Ctrl-C handler only where SIGINT is not ignored,
    # and a shell's background job (make test &) starts with it ignored:
    # then interrupt_main does nothing. A user's Python has the handler.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        t0 = time.monotonic()
        threading.Timer(0.2, _thread.interrupt_main).start()
        raises(KeyboardInterrupt, lambda: ng.render(SLOW, size=SLOW_SIZE, threads=2))
        # the whole render takes tens of seconds; the stop comes within a poll and a block
        assert time.monotonic() - t0 < 10
    finally:
        signal.signal(signal.SIGINT, old)


@test
def test_render_time_limit():
    raises(ng.Error, lambda: ng.render(SLOW, size=SLOW_SIZE, render_time_limit=0.2), "time limit")


@test
def test_script_errors_carry_file_and_line():
    path = os.path.join(TMP, "bad.lua")
    with open(path, "w") as f:
        f.write("local a = ng.perlin{}\nreturn ng.perlin{octaves = 3}\n")
    raises(ng.Error, lambda: ng.render(path, size=8), f"{path}:2:", "octaves")
    raises(ng.Error, lambda: ng.render("local x = 1\nerror('broken')\nreturn x", size=8), "script.lua:2:", "broken")
    raises(ng.Error, lambda: ng.render(os.path.join(TMP, "missing.lua"), size=8), "missing.lua")
    raises(ng.Error, lambda: ng.render("while true do end return 1", time_limit=0.2), "time limit")


@test
def test_bad_arguments_raise_clear_exceptions():
    raises(TypeError, lambda: ng.render(TERRAIN, size="big"), "size")
    raises(TypeError, lambda: ng.render(TERRAIN, size=(8, 8.5)), "size", "int")
    raises(ValueError, lambda: ng.render(TERRAIN, size=(0, 8)), "size")
    raises(ValueError, lambda: ng.render(TERRAIN, size=(8, 8, 8, 8)), "size")
    raises(ValueError, lambda: ng.render(TERRAIN, size=-5), "size")
    raises(ValueError, lambda: ng.render(TERRAIN, size=2**40), "size")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, region=(4, 4, 8, 8)), "region")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, region=(0, 0, 4)), "region")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, region="all"), "region")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, params=[1]), "params")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, params={"seed": [1]}), "seed")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, params={1: 2}), "params")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, params={"scale": float("nan")}), "scale")
    raises(ng.Error, lambda: ng.render(TERRAIN, size=8, params={"sed": 1}), "no parameter 'sed'", "seed")
    raises(ng.Error, lambda: ng.render(TERRAIN, size=8, params={"seed": 1.5}), "seed", "integer")
    raises(ng.Error, lambda: ng.render(TERRAIN, size=8, params={"scale": "wide"}), "scale", "number")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, bits=12), "bits")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, threads=-1), "threads")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, pixel_size=0), "pixel_size", "0 is not")
    raises(ValueError, lambda: ng.render(TERRAIN, size=8, origin=(1e300, 0)), "origin", "1e+300")
    g = ng.Graph(TERRAIN)  # its limits are its own: given to a call on it, they were ignored
    raises(TypeError, lambda: g.render(size=8, time_limit=float("nan")), "time_limit", "Graph(")
    raises(TypeError, lambda: ng.render(g, size=8, memory_limit=-5), "memory_limit", "Graph(")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, origin="here"), "origin")
    raises(TypeError, lambda: ng.render(TERRAIN, 8), "positional")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, colour=1), "colour")
    raises(TypeError, lambda: ng.render(42, size=8), "script")
    raises(TypeError, lambda: ng.render(TERRAIN, size=8, output=3), "output")
    raises(ValueError, lambda: ng.sample(TERRAIN, np.zeros((4, 5))), "points")
    raises(ValueError, lambda: ng.sample(TERRAIN, np.zeros(4)), "points")
    raises(ValueError, lambda: ng.sample(TERRAIN, [[float("inf"), 0]]), "points")
    raises(ValueError, lambda: ng.sample(TERRAIN, [["a", "b"]]))
    raises(ng.Error, lambda: ng.sample(CLOUD, [[1.0, 2.0]]), "")  # a 3D graph sampled in 2D
    raises(TypeError, lambda: ng.Graph(TERRAIN).render(8))
    raises(ValueError, lambda: ng.Graph(TERRAIN, time_limit=0), "time_limit")
    g = ng.Graph.__new__(ng.Graph)  # never initialised: refused, not a crash
    raises(Exception, lambda: g.render(size=8))




@test
def test_readme_python_blocks_run():
    found = readme_blocks.blocks(ROOT, blender=False)
    assert found, "README.md has no ```python block"
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for line, code in found:
            exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})
    finally:
        os.chdir(here)


shutil.rmtree(TMP)
if failures:
    print(f"test_module.py: {len(failures)} failed: {' '.join(failures)}")
    sys.exit(1)
print("test_module.py: all passed")
