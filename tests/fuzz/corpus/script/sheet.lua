-- lib/sheet.lua — lays nodes out as a contact sheet: panels[1..cols*rows]
-- in a grid of `cell`-pixel squares, row by row, chosen with hard-edged
-- selects on the world coordinates. Used by gallery.lua and
-- terrain_types.lua (require "lib.sheet").
return function(panels, cols, rows, cell)
  local col, row = ng.x() / cell, ng.y() / cell
  local function pick_row(r)
    local out = panels[cols * r + 1]
    for c = 1, cols - 1 do out = ng.select{a = out, b = panels[cols * r + c + 1], control = col, threshold = c} end
    return out
  end
  local sheet = pick_row(0)
  for r = 1, rows - 1 do sheet = ng.select{a = sheet, b = pick_row(r), control = row, threshold = r} end
  return sheet
end
