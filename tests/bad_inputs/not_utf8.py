# café in latin-1
import cuda.tile as ct
