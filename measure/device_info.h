// The device block of records: GPU name, SM count and driver version.
#pragma once

#include "model/record.h"

namespace lcab::measure {

/// Queries CUDA (name, multiprocessors) and the driver version (the kernel module's, e.g. "580.159.04", from
/// /proc/driver/nvidia/version; where that is unreadable, the CUDA driver API version, e.g. "CUDA 13.0"). Throws lcab::Error when the device does not exist.
DeviceInfo query_device_info(int device);

/// Number of CUDA devices; 0 when there is no GPU or no driver (never throws).
int cuda_device_count();

/// A folder-friendly device name for data/measurements/<device>/: "NVIDIA H100 80GB HBM3" -> "h100_80gb_hbm3".
std::string device_folder_name(const std::string& device_name);

}  // namespace lcab::measure
