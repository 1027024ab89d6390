"""gpu_stack from Python: the questions of the README's quick start, answered in one script.

Run it from the source tree after `make build`:

    PYTHONPATH=build/python python3 examples/python_quickstart.py

The test suite runs it too (python/tests/test_example.py). A notebook would say the same; this is its
plain-script form, so that running it needs nothing beyond NumPy.
"""
import numpy as np

import gpu_stack

# 1. One answer, with what it is made of.
cost = gpu_stack.resolve("econ.cost.per_token", preset="default")
print(cost)
print(f"  {len(cost.trace)} computed steps; the last three:")
for step in cost.trace[-3:]:
    print(f"    {step.variable} = {step.display}  ({step.relation}, {step.location.rsplit('/', 1)[-1]})")

# 2. A sweep: the cost per token over the price of power, 200 points, as NumPy arrays (SI units).
sweep = gpu_stack.sweep("econ.cost.per_token", preset="default",
                        vary={"econ.power.price_kwh_offpeak": np.linspace(0.02, 0.40, 200)})  # USD/(kW*h), the display unit
price, y = sweep["econ.power.price_kwh_offpeak"] * 3.6e6, sweep["econ.cost.per_token"]     # back to USD/(kW*h)
slope = np.polyfit(price, y, 1)[0]
print(f"sweep: {sweep.points} points; each extra 0.01 USD/kWh adds {slope * 0.01:.3e} USD/token")

# 3. How sure are we, and which inputs matter?
u = gpu_stack.uncertainty("econ.cost.per_token", preset="dense_training_cost_uncertain", samples=20000, seed=7)
print(f"uncertainty: median {u['median']:.4g} USD/token, 90% interval {u['p5']:.4g} .. {u['p95']:.4g}")
s = gpu_stack.sensitivity("econ.cost.per_token", preset="dense_training_cost_uncertain", samples=2000, seed=7)
top = s["inputs"][0]
print(f"sensitivity: {top['name']} explains {top['total_order']:.0%} of the variance (total order)")

# 4. Errors carry the command line's message.
try:
    gpu_stack.resolve("econ.cost.per_tokn", preset="default")
except gpu_stack.Error as e:
    print(f"error (code {e.code}): {e.message.splitlines()[0]}")
