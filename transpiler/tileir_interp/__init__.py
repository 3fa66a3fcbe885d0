"""An interpreter of CUDA Tile IR, as `tileirdisasm` prints it, on a CPU with numpy.

Takes a `TileIrModule` from `transpiler.ircheck.parse`, buffers and scalars; runs an entry
over a grid (`grid.run_grid`) and leaves its results in the buffers (`memory.Memory`). Each op
is a numpy expression over the whole tile (`table.OP_TABLE`: op name -> implementation);
element types and rounding in `elements`, views and tokens in `values`, regions in `regions`.
"""
