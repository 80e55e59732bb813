return ng.fit(ng.x(), 0, 8) + ng.clamp(ng.y(), 2) + ng.mix(1, 2) + ng.warp(ng.x(), ng.vector(1, 2)) + ng.abs(-3)
