"""Source verification: records checked against PDFs of their sources, recorded as reviews."""
