"""Beyond one process: parsing and training on a Dask cluster (``dask.distributed``)."""
