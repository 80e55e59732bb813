#!/usr/bin/python3
"""test_page.py — the page of `noisegraph serve`, driven in headless Chromium.

Usage: test_page.py NG_BIN NG_ROOT [SCREENSHOT.png]

Starts `NG_BIN serve` on a scratch copy of graphs/terrain.lua (port 0, the
URL read from its stdout) and checks what a user relies on: the page shows
an image that is not flat; moving a slider changes it; saving the script
makes the page update (the generation shown and the image); a broken script
shows its file:line and source line while the last image stays; clicking a
node in the graph previews that node; a drag and a wheel turn move the
world window (origin, pixel size) and 'reset view' brings it back; the
views ramp, hillshade and repeat each draw their own picture; the page's
state (parameters, view, output, folds) is in its URL and a reload of it shows
the same; a script of several outputs gets a picker, ramp and hillshade
of its RGB output picture its height output, :named() names and the
script's variable names label nodes and the graph's search finds them; an
80-node graph is drawn within the time limit, its search marks a node by
its name and scrolls to it, the 1:1 button changes its scale, a
right-click folds the branch feeding a node (fewer boxes drawn; "unfold
all" brings them back) and "hide" hides it. SCREENSHOT (a 1280x800
picture of the page) is written when given: docs/serve.png is one.

Needs Debian's chromium, chromium-driver and python3-selenium (`make test`
installs them as root). Without them it says so and fails: it never skips.
The last line is "N passed, N failed", like the C harness. Timeouts are hang
guards only (generous: a SAN build renders 3-10x slower); nothing is timed.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
WAIT = 90          # seconds any one thing may take before it counts as hung
WIDTH, HEIGHT = 1280, 800

passed = failed = 0


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what + (": " + detail if detail else ""))
    return cond


class Hung(Exception):
    pass


def wait_for(fn, what, timeout=WAIT):
    """fn() until it returns something true; Hung after timeout seconds."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # the page may be mid-update (stale element)
            last = e
        time.sleep(0.1)
    raise Hung("timed out after %d s waiting for %s%s" % (timeout, what, " (%s)" % last if last else ""))


def can_run():
    """Why the browser test cannot run here, or None."""
    missing = [p for p, f in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER)) if not os.path.exists(f)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("python3-selenium")
    if missing:
        return ("missing Debian packages: %s (run 'make test' as root, or 'sudo apt-get install %s')"
                % (" ".join(missing), " ".join(missing)))
    return None


# ---- the server ---------------------------------------------------------------

class Server:
    def __init__(self, binary, script):
        # run where the script is, so the page names it as a user would
        self.proc = subprocess.Popen([binary, "serve", os.path.basename(script), "--port", "0"],
                                     cwd=os.path.dirname(script), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out = []
        self.err = []
        self.url = None
        got = threading.Event()

        def read(stream, into, look):
            for line in stream:
                into.append(line)
                m = look and re.search(r"http://[^\s]+", line)
                if m and not self.url:
                    self.url = m.group(0)
                    got.set()
            got.set()  # the process ended: stop waiting

        threading.Thread(target=read, args=(self.proc.stdout, self.out, True), daemon=True).start()
        threading.Thread(target=read, args=(self.proc.stderr, self.err, False), daemon=True).start()
        got.wait(WAIT)
        if not self.url:
            self.stop()
            raise Hung("`noisegraph serve` printed no URL; stdout: %r stderr: %r"
                       % ("".join(self.out)[-500:], "".join(self.err)[-500:]))
        if not self.url.endswith("/"):
            self.url += "/"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---- the page -------------------------------------------------------------------

# What the image on screen is: its size, how many distinct grey levels, a
# hash of its pixels, and the request that made it (for the node check).
READ_IMAGE = """
const done = arguments[arguments.length - 1];
const img = document.getElementById('render');
if (!img || !img.complete || !img.naturalWidth || img.dataset.coarse !== '0') { done(null); return; }
const c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d');
g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
let h = 2166136261 >>> 0;
const levels = new Set();
for (let i = 0; i < d.length; i++) {
  h = Math.imul(h ^ d[i], 16777619) >>> 0;
  if ((i & 3) === 0) levels.add(d[i] * 65536 + d[i + 1] * 256 + d[i + 2]);
}
done({w: c.width, h: c.height, levels: levels.size, hash: h, url: img.dataset.url || '',
      src: img.src, gen: img.dataset.generation || ''});
"""


def new_driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=%d,%d" % (WIDTH, HEIGHT), "--hide-scrollbars", "--force-device-scale-factor=1"):
        o.add_argument(a)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)
    d.set_script_timeout(WAIT)
    # the page itself 1280x800, whatever the headless window's decorations take
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return d


def image(d):
    return d.execute_async_script(READ_IMAGE)


def settled_image(d, what, differs_from=None, url_has=None, url_lacks=None):
    """The full-size image once it is on screen (and differs from a given
    one, and came from a request with/without some text)."""
    def ready():
        im = image(d)
        if not im:
            return None
        if differs_from is not None and im["hash"] == differs_from["hash"]:
            return None
        if url_has and url_has not in im["url"]:
            return None
        if url_lacks and url_lacks in im["url"]:
            return None
        return im
    return wait_for(ready, what)


def text(d, id_):
    return d.execute_script("const e = document.getElementById(arguments[0]);"
                            "return e ? e.textContent : '';", id_)


def visible(d, id_):
    return d.execute_script("const e = document.getElementById(arguments[0]);"
                            "return !!e && !e.hidden && e.getClientRects().length > 0;", id_)


def generation(d):
    m = re.search(r"gen (\d+)", text(d, "status"))
    return int(m.group(1)) if m else None


# ---- the checks ------------------------------------------------------------------

def check_loads(d, url):
    d.get(url)
    im = settled_image(d, "the first full-size image")
    check(im["w"] > 0 and im["h"] > 0, "the page shows an image", "%dx%d" % (im["w"], im["h"]))
    check(im["levels"] > 16, "the image is not flat", "%d distinct colours" % im["levels"])
    check(d.find_elements("css selector", '.param[data-name="warp"] input[type=range]') != [],
          "each parameter has a slider (warp)")
    cmd = text(d, "command")
    check("noisegraph render" in cmd and "terrain.lua" in cmd, "the command line is shown", cmd)
    return im


def check_slider(d, before):
    from selenium.webdriver.common.action_chains import ActionChains
    slider = d.find_element("css selector", '.param[data-name="warp"] input[type=range]')
    field = d.find_element("css selector", '.param[data-name="warp"] input[type=number]')
    old = field.get_attribute("value")
    # a click well right of the thumb moves it there, as a user's would
    ActionChains(d).move_to_element_with_offset(slider, slider.size["width"] // 3, 0).click().perform()
    wait_for(lambda: field.get_attribute("value") != old, "the warp field to follow the slider")
    after = settled_image(d, "a new image after moving the warp slider", differs_from=before,
                          url_has="set.warp=")
    check(after["hash"] != before["hash"], "moving a slider changes the image")
    new = field.get_attribute("value")
    wait_for(lambda: "--set warp=" + new in text(d, "command"), "the command to carry warp=" + new)
    check("--set warp=" + new in text(d, "command"), "the command line carries the slider's value",
          text(d, "command"))
    return after


def check_file_change(d, script, before):
    gen0 = generation(d)
    src = open(script).read()
    # a different seed: the same graph, another pattern
    open(script, "w").write(src.replace('ng.param("seed", 7', 'ng.param("seed", 11'))
    wait_for(lambda: generation(d) not in (None, gen0), "the generation shown to change after saving")
    check(generation(d) != gen0, "saving the script changes the generation shown",
          "%s -> %s" % (gen0, generation(d)))
    after = settled_image(d, "a new image after saving the script", differs_from=before)
    check(after["hash"] != before["hash"], "saving the script changes the image")
    check("set.warp=" in after["url"], "the slider's value survives the script's re-run", after["url"])
    return after


BROKEN_LINE = 6
BROKEN_SOURCE = "local oops = nil + 1"


def check_broken(d, script, before):
    good = open(script).read()
    lines = good.split("\n")
    lines.insert(BROKEN_LINE - 1, BROKEN_SOURCE)
    gen0 = generation(d)
    open(script, "w").write("\n".join(lines))
    wait_for(lambda: visible(d, "error"), "the error to be shown")
    where = "terrain.lua:%d" % BROKEN_LINE
    page = text(d, "error")
    check(where in page, "a broken script shows file:line", page)
    check(page.count(where + ":") == 1, "a broken script shows its file:line once", page)
    check(BROKEN_SOURCE in text(d, "error-source"), "a broken script shows its source line", page)
    check(generation(d) != gen0, "the failed run is a new generation")
    im = settled_image(d, "the image while the script is broken")
    check(im["levels"] > 16 and im["hash"] == before["hash"], "the last good image stays on screen",
          "%d levels, hash %s vs %s" % (im["levels"], im["hash"], before["hash"]))
    open(script, "w").write(good)
    wait_for(lambda: not visible(d, "error"), "the error to go when the script is fixed")
    check(not visible(d, "error"), "fixing the script clears the error")


def click_node(d, node):
    """Clicks node's box in the graph drawing. The drawing is redrawn when
    a run ends (the script's re-run after a fix can end just then), which
    leaves a found element stale: it is found again, a few times."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.common.exceptions import StaleElementReferenceException
    for attempt in range(5):
        g = wait_for(lambda: d.find_elements("css selector", "#graph g#node-%d" % node),
                     "node %d in the graph" % node)[0]
        try:
            ActionChains(d).move_to_element(g).click().perform()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise
            time.sleep(0.2)


def check_node_click(d, before):
    nodes = d.execute_script("return ui.state.nodes.map(n => n.id)")
    outs = d.execute_script("return ui.state.outputs.map(o => o.id)")
    # the first node (the Perlin noise under the warp): not the output
    target = [n for n in nodes if n not in outs][0]
    click_node(d, target)
    after = settled_image(d, "the preview of node %d" % target, differs_from=before,
                          url_has="node=%d" % target)
    check("node=%d" % target in after["url"], "clicking a node asks for that node's output", after["url"])
    check(after["hash"] != before["hash"], "the node's preview differs from the output")
    check(visible(d, "preview-bar"), "the page says which node is previewed", text(d, "preview-bar"))
    # terrain.lua's warp is driven by a 3-channel (vector) simplex: no volume of that
    vec = d.execute_script("return ui.state.nodes.filter(n => n.channels === 3).map(n => n.id)")
    check(vec != [], "terrain.lua has a vector node", str(vec))
    if vec:
        click_node(d, vec[0])
        volume = d.find_element("css selector", '#views button[data-view="volume"]')
        wait_for(lambda: not volume.is_enabled(), "the volume view to be disabled for a vector node")
        check("channels" in volume.get_attribute("title"), "the disabled volume view says why",
              volume.get_attribute("title"))
    d.find_element("id", "back").click()
    wait_for(lambda: d.find_element("css selector", '#views button[data-view="volume"]').is_enabled(),
             "the volume view to be back for the output")
    back = settled_image(d, "the output again", url_lacks="node=")
    check(back["hash"] == before["hash"], "'back to the output' shows the output again")


def check_pan_zoom(d, before):
    from selenium.webdriver.common.action_chains import ActionChains
    vp = d.find_element("id", "viewport")
    ActionChains(d).move_to_element(vp).click_and_hold().move_by_offset(120, 60).release().perform()
    panned = settled_image(d, "the image after a drag", differs_from=before)
    m = re.search(r"ox=([-0-9.e]+)&oy=([-0-9.e]+)", panned["url"])
    check(m and float(m.group(1)) < 0 and float(m.group(2)) < 0,
          "dragging right and down moves the window's origin left and up", panned["url"])
    check("--origin " in text(d, "command"), "the command line carries the new origin", text(d, "command"))
    check(not text(d, "where").startswith("origin 0, 0"), "the origin shown follows the drag", text(d, "where"))
    d.execute_script("""const vp = document.getElementById('viewport'), r = vp.getBoundingClientRect();
        vp.dispatchEvent(new WheelEvent('wheel', {deltaY: -400, clientX: r.left + r.width / 2,
            clientY: r.top + r.height / 2, bubbles: true, cancelable: true}));""")
    zoomed = settled_image(d, "the image after a wheel turn", differs_from=panned)
    m = re.search(r"&ps=([-0-9.e]+)", zoomed["url"])
    check(m and 0 < float(m.group(1)) < 1, "the wheel zooms in (a smaller pixel size)", zoomed["url"])
    d.find_element("id", "reset").click()
    back = settled_image(d, "the image after 'reset view'", url_has="ox=0&oy=0&ps=1&")
    check(back["hash"] == before["hash"], "'reset view' shows the script's window again")
    return back


def check_views(d, before):
    seen = {before["hash"]}
    for v in ("ramp", "hillshade", "repeat"):
        d.find_element("css selector", '#views button[data-view="%s"]' % v).click()
        im = settled_image(d, "the %s view" % v, url_has="view=" + v)
        check(im["hash"] not in seen and im["levels"] > 16, "the %s view is a picture of its own" % v)
        seen.add(im["hash"])
    d.find_element("css selector", '#views button[data-view="grey"]').click()
    return settled_image(d, "the grey view again", url_has="view=grey")


def check_terrain_controls(d, before):
    """The hillshade's terrain controls (sea level, height scale, ramp):
    shown with that view only, each changes the picture and the URL."""
    check(not visible(d, "terrain"), "the terrain controls are hidden outside the hillshade view")
    d.find_element("css selector", '#views button[data-view="hillshade"]').click()
    wait_for(lambda: visible(d, "terrain"), "the terrain controls with the hillshade view")
    shade = settled_image(d, "the hillshade view", url_has="view=hillshade")
    d.execute_script("const s = document.getElementById('sea'); s.value = '0.6';"
                     "s.dispatchEvent(new Event('input'))")
    sea = settled_image(d, "the hillshade at sea level 0.6", url_has="sea=0.6", differs_from=shade)
    check(sea["hash"] != shade["hash"], "the sea level control changes the hillshade", sea["url"])
    from selenium.webdriver.support.ui import Select
    Select(d.find_element("id", "tramp")).select_by_visible_text("grey")
    grey = settled_image(d, "the grey hillshade", url_has="ramp=grey")
    check(grey["hash"] != sea["hash"], "the ramp control changes the hillshade", grey["url"])
    d.find_element("id", "hs").send_keys("500")
    tall = settled_image(d, "the hillshade with a height scale", url_has="hs=500")
    check(tall["hash"] != grey["hash"], "the height scale control changes the hillshade", tall["url"])
    check("sea=0.6" in d.current_url and "ramp=grey" in d.current_url and "hs=500" in d.current_url,
          "the URL carries the terrain controls", d.current_url)
    d.execute_script("ui.terrain = {}; showTerrain();")
    d.find_element("css selector", '#views button[data-view="grey"]').click()
    return settled_image(d, "the grey view again", url_has="view=grey")


def check_url_state(d, before):
    """The page's state is in its URL: a reload of that URL (a bookmark, a
    link sent to someone) shows the same parameters, view and window."""
    d.find_element("css selector", '#views button[data-view="ramp"]').click()
    ramp = settled_image(d, "the ramp view", url_has="view=ramp")
    url = d.current_url
    check("set.warp=" in url and "view=ramp" in url, "the URL carries the parameters and the view", url)
    warp = d.find_element("css selector", '.param[data-name="warp"] input[type=number]').get_attribute("value")
    d.get("about:blank")
    d.get(url)
    again = settled_image(d, "the page opened from its URL", url_has="view=ramp")
    check(again["hash"] == ramp["hash"], "the page opened from its URL shows the same picture",
          "%s vs %s" % (again["hash"], ramp["hash"]))
    field = d.find_element("css selector", '.param[data-name="warp"] input[type=number]')
    check(field.get_attribute("value") == warp, "the URL's parameter value is in its control",
          "%s vs %s" % (field.get_attribute("value"), warp))
    check("on" in d.find_element("css selector", '#views button[data-view="ramp"]').get_attribute("class"),
          "the URL's view is the one marked")
    check("--set warp=" in text(d, "command"), "the command line carries the URL's parameter", text(d, "command"))
    d.find_element("css selector", '#views button[data-view="grey"]').click()
    return settled_image(d, "the grey view again", url_has="view=grey")


OUTPUTS = """local ridgeline = ng.fbm{ng.perlin{element_size = 60}:named("mountains"), octaves = 4}
local h = ridgeline:fit(-1, 1, 0, 1)
return {colour = h:ramp("terrain"), height = h}
"""


def check_outputs(d, script, base_url):
    """A script of several outputs: a picker chooses the one shown (in the
    URL too); ramp and hillshade of the RGB one picture the height output;
    nodes carry the script's names; the graph's search finds one."""
    from selenium.webdriver.support.ui import Select
    good = open(script).read()
    open(script, "w").write(OUTPUTS)
    wait_for(lambda: visible(d, "output-pick"), "the output picker to show for two outputs")
    names = [o.text for o in Select(d.find_element("id", "output")).options]
    check(names == ["colour", "height"], "the picker lists the script's outputs", str(names))
    ids = d.execute_script("return ui.state.outputs.map(o => o.id)")
    grey = settled_image(d, "the colour output", url_lacks="node=")
    d.find_element("css selector", '#views button[data-view="hillshade"]').click()
    shade = settled_image(d, "the hillshade of the RGB output", url_has="node=%d" % ids[1])
    check("node=%d" % ids[1] in shade["url"] and shade["levels"] > 16,
          "hillshade of an RGB output pictures the height output", shade["url"])
    check("of output 'height'" in text(d, "status"), "the status line says which output is shaded",
          text(d, "status"))
    d.find_element("css selector", '#views button[data-view="grey"]').click()
    settled_image(d, "the colour output again", url_has="view=grey", url_lacks="node=")
    Select(d.find_element("id", "output")).select_by_visible_text("height")
    h = settled_image(d, "the height output", url_has="node=%d" % ids[1])
    check(h["hash"] != grey["hash"], "picking an output shows it")
    check("output=height" in d.current_url, "the URL carries the output", d.current_url)
    labels = d.execute_script("return ui.state.nodes.map(n => n.label)")
    check("mountains" in labels, "a node is labelled by its :named() name", str(labels))
    check("ridgeline" in labels, "a node is labelled by the script's variable name", str(labels))
    wait_for(lambda: "mountains" in text(d, "graph"), "the graph to show the node's name")
    check("ridgeline (fractal)" in text(d, "graph"), "the drawn graph shows the variable's name and the type",
          text(d, "graph")[:300])
    d.find_element("id", "graph-search").send_keys("mountains")
    found = wait_for(lambda: d.find_elements("css selector", "#graph g.node.found"), "the search to mark a node")
    check(len(found) == 1, "the graph's search finds the named node", str(len(found)))
    check("actual" in d.find_element("id", "graph").get_attribute("class"),
          "a search shows the graph at its own size, scrolled to the node")
    d.find_element("id", "graph-search").clear()
    d.execute_script("document.getElementById('graph-search').dispatchEvent(new Event('input'))")
    d.get(d.current_url)  # the picked output survives a reload
    wait_for(lambda: visible(d, "output-pick"), "the output picker after a reload")
    settled_image(d, "the height output after a reload", url_has="node=%d" % ids[1])
    check(Select(d.find_element("id", "output")).first_selected_option.text == "height",
          "the URL's output is the one picked after a reload")
    open(script, "w").write(good)
    wait_for(lambda: not visible(d, "output-pick"), "the picker to go for one output")
    d.get(base_url)
    return settled_image(d, "the script's own output again", url_lacks="node=")


def screenshot(d, path):
    # the ramp view reads best in a small picture; then back to grey
    d.find_element("css selector", '#views button[data-view="ramp"]').click()
    settled_image(d, "the ramp view", url_has="view=ramp")
    d.save_screenshot(path)
    with open(path, "rb") as f:
        head = f.read(24)
    size = struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None
    check(size == (WIDTH, HEIGHT), "the screenshot is a %dx%d PNG" % (WIDTH, HEIGHT), str(size))


# 82 nodes, 81 drawn (the 0.5 is shown in its consumer): 40 noises summed
# pairwise by 39 adds, scaled, fitted. Built by a loop, as large graphs are.
EIGHTY = """local layer = {}
for i = 1, 40 do layer[i] = ng.perlin{element_size = 16 + i, seed = i} end
while #layer > 1 do
  local pairs_ = {}
  for i = 1, #layer, 2 do pairs_[#pairs_ + 1] = layer[i + 1] and layer[i] + layer[i + 1] or layer[i] end
  layer = pairs_
end
local crater = layer[1] * 0.5
return crater:fit(-1, 1, 0, 1)
"""

DRAWN = """return Array.from(document.querySelectorAll('#graph svg g[id^="node-"]'))
    .filter(g => g.getClientRects().length > 0).length"""


def check_eighty_nodes(d, script, base_url):
    """An 80-node graph stays readable: it is drawn within the time limit,
    the search marks a node by its variable name and scrolls to it, the
    1:1 button changes the scale, folding a branch draws fewer boxes and
    'hide' hides the drawing."""
    from selenium.webdriver.common.action_chains import ActionChains
    good = open(script).read()
    open(script, "w").write(EIGHTY)
    wait_for(lambda: d.execute_script(DRAWN) >= 80 or "longer than" in text(d, "graph"),
             "the 80-node graph to be drawn")
    check(d.execute_script(DRAWN) == 81, "the 80-node graph is drawn within the time limit (81 boxes)",
          "%d boxes; panel: %s" % (d.execute_script(DRAWN), text(d, "graph")[:200]))
    ids = d.execute_script("return ui.state.nodes.filter(n => n.label === 'crater').map(n => n.id)")
    check(len(ids) == 1, "the variable 'crater' labels its node", str(ids))
    crater = ids[0] if ids else -1
    # search: one node marked, the drawing at its own size, the node in view
    box = d.find_element("id", "graph-search")
    box.send_keys("crater")
    found = wait_for(lambda: d.find_elements("css selector", "#graph g.node.found"), "the search to mark crater")
    check(len(found) == 1 and found[0].get_attribute("id") == "node-%d" % crater,
          "the search finds the node by its variable name", str([f.get_attribute("id") for f in found]))
    in_view = d.execute_script("""const g = arguments[0].getBoundingClientRect(),
        p = document.getElementById('graph').getBoundingClientRect();
        return g.width > 0 && g.left < p.right && g.right > p.left && g.top < p.bottom && g.bottom > p.top;""",
                               found[0])
    check(in_view, "the found node is scrolled into the graph's view")
    check("actual" in d.find_element("id", "graph").get_attribute("class"), "the search shows the graph at 1:1")
    # the scale: a node's drawn height (the svg element itself fills the panel when fitted)
    size = "return document.querySelector('#graph g#node-%d').getBoundingClientRect().height" % crater
    actual = d.execute_script(size)
    d.find_element("id", "graph-zoom").click()
    fit = d.execute_script(size)
    check(actual > 1.5 * fit > 0, "the zoom button changes the graph's scale (1:1 against fitted)",
          "a node %.1f px high at 1:1, %.1f px fitted" % (actual, fit))
    box.clear()
    d.execute_script("document.getElementById('graph-search').dispatchEvent(new Event('input'))")
    # fold: a right-click on crater draws its whole branch as crater itself
    g = d.find_element("css selector", "#graph g#node-%d" % crater)
    ActionChains(d).context_click(g).perform()
    wait_for(lambda: d.execute_script(DRAWN) < 10, "the folded drawing")
    check(d.execute_script(DRAWN) == 2, "folding crater's branch draws fewer boxes (crater and the fit)",
          "%d boxes" % d.execute_script(DRAWN))
    check("[+79 nodes folded]" in text(d, "graph"), "the folded node says how many it stands for",
          text(d, "graph")[:300])
    check("fold=%d" % crater in d.current_url, "the URL carries the folded node", d.current_url)
    d.get(d.current_url)
    wait_for(lambda: d.execute_script(DRAWN) == 2, "the folded drawing after a reload")
    check(d.execute_script(DRAWN) == 2, "a reload of the URL draws the branch folded")
    check(visible(d, "graph-unfold"), "'unfold all' shows while a branch is folded")
    d.find_element("id", "graph-unfold").click()
    wait_for(lambda: d.execute_script(DRAWN) == 81, "the whole drawing again after 'unfold all'")
    check(not visible(d, "graph-unfold") and "fold=" not in d.current_url, "'unfold all' unfolds every branch",
          d.current_url)
    d.find_element("id", "graph-fold").click()
    check(d.execute_script(DRAWN) == 0, "'hide' hides the drawing")
    d.find_element("id", "graph-fold").click()
    check(d.execute_script(DRAWN) == 81, "'show' draws it again")
    open(script, "w").write(good)
    wait_for(lambda: d.execute_script("return ui.state.nodes.length") < 10, "the script's own graph again")
    d.get(base_url)
    return settled_image(d, "the script's own output again", url_lacks="node=")


def check_big_graph(d, script):
    """A graph too large to lay out: the panel says so, and the drawing
    comes back when the script is small again."""
    good = open(script).read()
    big = "local big = ng.perlin{}\nfor i = 1, 300 do big = big + ng.perlin{seed = i} end\n"
    open(script, "w").write(big + good)
    wait_for(lambda: "too many to draw" in text(d, "graph"), "the graph panel to say the graph is too large")
    said = text(d, "graph")
    check("too many to draw" in said and "at most 500" in said, "a graph too large to draw says so in its panel",
          said)
    open(script, "w").write(good)
    wait_for(lambda: d.find_elements("css selector", "#graph svg g[id^=node-]"), "the drawing to come back")
    check(d.find_elements("css selector", "#graph svg g[id^=node-]") != [],
          "the drawing comes back when the graph is small again")


def main():
    if len(sys.argv) < 3:
        print("usage: test_page.py NG_BIN NG_ROOT [SCREENSHOT.png]", file=sys.stderr)
        return 2
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shot = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    why = can_run()
    if why:
        check(False, "the browser test can run", why)
        print("%d passed, %d failed" % (passed, failed))
        return 1
    tmp = tempfile.mkdtemp(prefix="ng_page_")
    script = os.path.join(tmp, "terrain.lua")
    shutil.copy(os.path.join(root, "graphs", "terrain.lua"), script)
    server = driver = None
    try:
        server = Server(binary, script)
        print("serving at " + server.url)
        driver = new_driver()
        im = check_loads(driver, server.url)
        steps = [lambda im: check_slider(driver, im),
                 lambda im: check_file_change(driver, script, im),
                 lambda im: check_broken(driver, script, im) or im,
                 lambda im: check_node_click(driver, im) or im,
                 lambda im: check_pan_zoom(driver, im),
                 lambda im: check_views(driver, im),
                 lambda im: check_terrain_controls(driver, im),
                 lambda im: check_url_state(driver, im),
                 lambda im: check_outputs(driver, script, server.url),
                 lambda im: check_eighty_nodes(driver, script, server.url),
                 lambda im: check_big_graph(driver, script) or im]
        for step in steps:
            im = step(im)
        if shot:
            screenshot(driver, shot)
        errors = [e["message"] for e in driver.get_log("browser") if "Uncaught" in e["message"]]
        check(not errors, "no script error in the page", "; ".join(errors))
    except Exception as e:
        check(False, "the browser session ran to its end", "%s: %s" % (type(e).__name__, e))
        traceback.print_exc()
        if driver:
            print("status line: %r" % text(driver, "status"))
            if server:
                print("server stderr: %r" % "".join(server.err)[-1500:])
    finally:
        if driver:
            driver.quit()
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
