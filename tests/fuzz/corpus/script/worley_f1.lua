-- Bench row: Worley F1 (euclidean, default jitter); rendered in 2D and 3D.
-- Peer: libnoise Voronoi with distance output.
return ng.worley{element_size = 50, feature = "f1"}
