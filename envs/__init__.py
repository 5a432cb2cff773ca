"""Training environments: the games for the learning libraries researchers already use.

- :mod:`envs.tensors`: the generic encoder (observation JSON -> fixed float32 vector,
  compiled once per layout) and action index space; :mod:`envs.layouts`: each game's layout
  and spaces (``python -m envs.describe GAME`` prints one); :mod:`envs.manatee`: Manatee
  Sanctuary's factored decision space (hand slots, placements by anchor);
  :mod:`envs.direct`: tensors written from a state's fields, equal to the observation's
  encoding (compiled by mypyc when built: :mod:`envs.native`);
- :mod:`envs.pettingzoo`: PettingZoo AEC environments; :mod:`envs.openspiel`: OpenSpiel
  Python games (``menagerie_<game>``);
- :mod:`envs.reinforce` and :mod:`envs.policy_bot`: a policy trained by self-play and
  played as an SDK bot (``envs/policy_tournament.yaml``: its tournament against the
  reference bots); :mod:`envs.bench`: environment vs engine speed.

Everything reads the engines through their public contract (observations, legal actions,
chance outcomes, action classes, resample) and, where an index is relative to the seat
(Manatee's hand slots) or a tensor is written from the state (:mod:`envs.direct`), the
state's documented public fields; never its private ones.
"""

from envs import native

_compiled = native.library()
if _compiled is not None:
    # the build of the current sources (envs/native.py checks its stamp): its modules
    # (envs.direct) load before the interpreted ones
    __path__.insert(0, _compiled)
