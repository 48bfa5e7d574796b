"""Studies run from the command line (``python -m nvsim.studies.<name>``): they pick parts from the
catalog and print a table from the model functions below them in the house."""
