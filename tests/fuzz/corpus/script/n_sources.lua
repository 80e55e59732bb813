local d = ng.distance{center = {4, 4, 0}, radius = 3, metric = "manhattan"}
local i = ng.image{"img.png", wrap = "mirror", filter = "nearest", channel = "a", pixel_size = 0.5}
local j = ng.image{path = "img.png", wrap = "clamp", channel = "rgb", origin = {-3, 2, 0}}
return {d = d + ng.x() + ng.y() + ng.z() + ng.time(), i = i, j = j:channel(1)}
