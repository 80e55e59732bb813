-- nodes limited in their dimensions, rendered at 2D, 3D or 4D
return {curl = ng.curl{ng.perlin{}}:channel(1), tiled = ng.simplex{range = "unit"} + ng.white{},
        t = ng.time() + ng.z(), one = ng.perlin{} * ng.x()}
