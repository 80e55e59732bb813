-- Bench volume: a cloud density with about half its voxels above 0 (the
-- rest inactive in a .vdb): 5 octaves of perlin fBm at element size 64
-- voxels, shifted and clamped at 0.
return ng.max(ng.fbm{source = ng.perlin{element_size = 64}, octaves = 5}, 0)
