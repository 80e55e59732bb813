-- Bench row: value noise, one octave; 2D. Frequency 0.02 per pixel, the
-- grid the peers use (element_size = 1 / 0.02).
return ng.value{element_size = 50}
