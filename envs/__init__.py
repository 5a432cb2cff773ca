"""Training environments: the games for the learning libraries researchers already use.

- :mod:`envs.tensors`: the generic encoder (observation JSON -> fixed float32 vector) and
  action index space; :mod:`envs.layouts`: each game's layout and spaces
  (``python -m envs.describe GAME`` prints one);
- :mod:`envs.pettingzoo`: PettingZoo AEC environments; :mod:`envs.openspiel`: OpenSpiel
  Python games (``menagerie_<game>``);
- :mod:`envs.reinforce` and :mod:`envs.policy_bot`: a policy trained by self-play and
  played as an SDK bot; :mod:`envs.bench`: environment vs engine speed.

Everything reads the engines through their public contract (observations, legal actions,
chance outcomes, action classes), never a state's private fields.
"""
