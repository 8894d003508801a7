"""Adapters from gridsim's vector envs to the interfaces of other libraries.

Each adapter is its own module and imports its library only there, so that importing
gridsim never needs it: ``from gridsim.integrations.sb3 import SB3VecEnv`` needs
Stable-Baselines3 (``pip install "gridsim-vec[sb3]"``). Adapters name no family: they read
what they need (spaces, infos, action masks) from the vector env.
"""
