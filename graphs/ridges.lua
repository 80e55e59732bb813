-- ridges.lua — one ridged octave of a gradient basis: issue 24's example,
-- where the gradients of versions before 0.2.0 put straight creases along
-- lattice lines. README, "Gradients", shows it before (--classic) and after.
-- Render: noisegraph render graphs/ridges.lua -o ridges.png --size 768x512 [--set basis=simplex] [--classic]
local basis = ng.param("basis", "perlin", {doc = "the gradient basis: perlin, fast, simplex or flow"})
return ng.ridged{ng.noise{type = basis, element_size = 128, seed = 7}, octaves = 1}
