-- Bench row: simplex noise, one octave; rendered in 2D and 3D.
return ng.simplex{element_size = 50}
