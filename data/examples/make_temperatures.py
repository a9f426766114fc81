"""Write data/examples/temperatures.csv: a year of daily mean temperatures, synthetic and seeded.

    python data/examples/make_temperatures.py        # rewrites the file next to this script

The climate is that of an imagined temperate town: a yearly cycle (mean 10.5 °C, 9 °C either side of
it, warmest around day 200, mid-July) plus weather that lingers for a few days (each day keeps 75 % of
yesterday's departure from the cycle and adds a fresh normal one with standard deviation 1.8 °C).
Temperatures are rounded to a tenth of a degree, as a weather service reports them.  The same seed gives
the same file on every machine (numpy's default generator).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

SEED = 2024
DAYS = 365
MEAN, SWING, WARMEST_DAY = 10.5, 9.0, 200     # °C, °C, day of the year
KEEP, WEATHER_SD = 0.75, 1.8                  # share of yesterday's departure kept; °C


def temperatures(seed: int = SEED, days: int = DAYS) -> tuple[list[int], list[float]]:
    """(day 1 ... days, mean temperature in °C rounded to 0.1) of one synthetic year.

    T(d) = MEAN + SWING cos(2 pi (d - WARMEST_DAY) / 365) + e(d),  e(d) = KEEP e(d - 1) + N(0, WEATHER_SD^2),
    starting from e(0) drawn from the weather's own spread, WEATHER_SD / sqrt(1 - KEEP^2).
    """
    rng = np.random.default_rng(seed)
    e = rng.normal(0.0, WEATHER_SD / math.sqrt(1 - KEEP ** 2))
    day, temp = [], []
    for d in range(1, days + 1):
        e = KEEP * e + rng.normal(0.0, WEATHER_SD)
        t = MEAN + SWING * math.cos(2 * math.pi * (d - WARMEST_DAY) / 365) + e
        day.append(d)
        temp.append(round(t, 1) + 0.0)            # + 0.0: no "-0.0" in the file
    return day, temp


def csv_text(seed: int = SEED, days: int = DAYS) -> str:
    """The file's text: a header "day,temp_c", then one line per day."""
    day, temp = temperatures(seed, days)
    return "day,temp_c\n" + "".join(f"{d},{t:.1f}\n" for d, t in zip(day, temp))


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "temperatures.csv"
    out.write_text(csv_text(), encoding="utf-8", newline="\n")
    print(f"wrote {out}")
