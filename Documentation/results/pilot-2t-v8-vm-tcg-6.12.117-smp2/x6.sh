#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 6 (x6/): step 5 on the posted patch (after the second review: the
# quiet wait also ends when another task is runnable on the CPU).
here=$(cd "$(dirname "$0")" && pwd)
OUT=x6 exec "$here/x5.sh"
