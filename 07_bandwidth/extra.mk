# plot-07: draws a --sweep CSV of 07_bandwidth as a PNG with gnuplot
# (installed as gnuplot-nox when missing, like libstb-dev for chapter 06).
#   make plot-07                                   sweep now (needs a GPU)
#   make plot-07 PLOT07_CSV=sweep.csv PLOT07_PNG=sweep.png
# PLOT07_ARGS passes options to that sweep (e.g. --max 256M); GNUPLOT is
# the gnuplot program to run.
GNUPLOT     ?= gnuplot
PLOT07_CSV  ?=
PLOT07_PNG  ?= $(BUILD)/07_bandwidth_sweep.png
PLOT07_ARGS ?=

.PHONY: plot-07
plot-07: $(if $(PLOT07_CSV),,$(BIN)/07_bandwidth)
	@csv='$(PLOT07_CSV)'; \
	if [ -n "$$csv" ] && [ ! -f "$$csv" ]; then \
	  echo "error: PLOT07_CSV=$$csv: no such file" >&2; exit 1; \
	fi; \
	if ! { [ -z "$$csv" ] || head -n 1 "$$csv" 2>/dev/null | \
	       grep -q '^bytes,pageable_h2d_gbps,'; }; then \
	  echo "error: $$csv is not a CSV of 07_bandwidth --sweep" >&2; exit 1; \
	fi
	@$(call need,command -v $(GNUPLOT) >/dev/null 2>&1,gnuplot-nox,gnuplot)
	@csv='$(PLOT07_CSV)'; \
	if [ -z "$$csv" ]; then \
	  csv=$(BUILD)/07_bandwidth_sweep.csv; \
	  $(BIN)/07_bandwidth --sweep --csv "$$csv" $(PLOT07_ARGS) || \
	    { $(call skip77,$@); }; \
	fi; \
	mkdir -p "$$(dirname '$(PLOT07_PNG)')" && \
	$(GNUPLOT) -e "csv='$$csv'; png='$(PLOT07_PNG)'" 07_bandwidth/plot.gp && \
	echo "wrote $(PLOT07_PNG)"
