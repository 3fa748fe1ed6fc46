"""tools/gfn-plot's modules: run_dir (reading a gfn-train run directory) and figures
(matplotlib drawings). See docs/outputs.md "Plots"."""
