"""The discrete-event (SimPy) model of one SM running a warp-specialised TMA/MMA GEMM mainloop."""
