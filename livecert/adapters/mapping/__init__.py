"""Mapping adapters: certify a vendor-shaped API from a YAML file, without writing Python."""

from livecert.adapters.mapping.adapter import MappingAdapter
from livecert.adapters.mapping.document import MappingError, MappingFile, load_mapping

__all__ = ["MappingAdapter", "MappingError", "MappingFile", "load_mapping"]
