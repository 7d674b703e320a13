#!/usr/bin/env python3
"""lcab-predict kernel says "unsupported", with the implementation's reason, for a call the implementation cannot
make, instead of predicting it: cudnn on share_question (two key ranges in a row), SDPA's flash backend on a
document mask. Their records carry status "unsupported", the reason and no time; the calls they can make are
predicted as before, in the same table.
"""
from kernel_output import check, predict_kernel

records, rows, columns = predict_kernel(["--impl", "cudnn,torch_sdpa_flash,lcab_flash", "--mask",
                                         "share_question,causal_document,causal", "--seqlen", "8k", "--pass", "fwd"], 9)
cannot = {("cudnn", "share_question"), ("torch_sdpa_flash", "share_question"), ("torch_sdpa_flash", "causal_document")}
for record, row in zip(records, rows):
    key = record["key"]
    point = (key["impl"], key["mask"])
    shown = row[columns["time ms"]]
    if point in cannot:
        check(record["status"] == "unsupported" and record.get("error") and "time_ms" not in record,
              f"{point}: {record}")
        check(shown == "unsupported" and row[columns["TFLOP/s"]] == "-", f"{point}: {row}")
    else:
        check(record["status"] == "ok" and record["time_ms"]["median"] > 0, f"{point}: {record}")
        check(float(shown) > 0, f"{point}: {row}")
print("kernel_unsupported: all checks passed")
