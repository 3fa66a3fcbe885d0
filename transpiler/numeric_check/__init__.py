"""The numeric check: both sides of a translation run on the Tile IR interpreter
(`transpiler.tileir_interp`) with the same seeded inputs, their outputs compared (`run`)."""
