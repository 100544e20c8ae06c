# Included by each chapter's Makefile, so that in NN_topic/ `make` builds the
# chapter, `make run ARGS="..."` runs its lab, `make lesson` and
# `make exercise` run lesson.cu and exercise.cu, `make compare` sets the lab
# beside the tutorial's CuPy code (cupy_original.py), and `make test`,
# `make clean` work as at the top. Variables given on the command line
# (SMS=90) pass through.
NN := $(firstword $(subst _, ,$(notdir $(CURDIR))))
all:
	@$(MAKE) --no-print-directory -C .. $(NN)
run lesson exercise compare:
	@$(MAKE) --no-print-directory -C .. $@-$(NN) ARGS='$(ARGS)'
test clean help:
	@$(MAKE) --no-print-directory -C .. $@
.PHONY: all run lesson exercise compare test clean help
