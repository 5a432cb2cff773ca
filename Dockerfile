# syntax=docker/dockerfile:1
# Menagerie's one image: the arena (tournaments, ladder, game server), the reference bots,
# Ray (with its dashboard, for KubeRay and `ray job submit`) and MLflow's tracking server.
# k8s/ runs every pod from it. Build:   docker build -t menagerie:0.1.0 .
# With Node.js for Node bots (bots/node): docker build --build-arg WITH_NODE=true -t menagerie:0.1.0-node .
# Linted offline by `make lint` (hadolint, configured in .hadolint.yaml).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: the project and its dependencies into a virtualenv, nothing else ---------------
FROM ${PYTHON_IMAGE} AS build
# the Ray version pyproject.toml resolves to; its [default] extra adds the dashboard that
# KubeRay's RayJob and `ray job submit` talk to (every node must run the same Ray)
ARG RAY_VERSION=2.60.0
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
RUN python -m venv /opt/menagerie
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY bots/ bots/
COPY arena/ arena/
COPY wire/ wire/
COPY proto/gen/ proto/gen/
RUN /opt/menagerie/bin/pip install --no-cache-dir . "ray[default]==${RAY_VERSION}"

# --- runtime: slim Python, the virtualenv, a non-root user ---------------------------------
FROM ${PYTHON_IMAGE} AS runtime
# true: install Node.js and the Node example bot's dependencies (cmd:node bots/node/bot.js)
ARG WITH_NODE=false
ARG UID=1000
LABEL org.opencontainers.image.title="menagerie" \
      org.opencontainers.image.description="Distributed AI tournament platform for board games" \
      org.opencontainers.image.licenses="Apache-2.0"
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# wget: KubeRay's default health probes of Ray pods call it; tini: reaps bot processes
RUN apt-get update \
    && apt-get install -y --no-install-recommends wget tini \
    && if [ "${WITH_NODE}" = "true" ]; then \
         apt-get install -y --no-install-recommends nodejs npm; \
       fi \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid "${UID}" --user-group --create-home --shell /usr/sbin/nologin menagerie
COPY --from=build /opt/menagerie /opt/menagerie
WORKDIR /app
COPY --chown=${UID}:${UID} examples/ examples/
COPY --chown=${UID}:${UID} bots/node/ bots/node/
RUN if [ "${WITH_NODE}" = "true" ]; then npm ci --omit=dev --prefix bots/node; \
    else rm -rf bots/node; fi
ENV PATH=/opt/menagerie/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/home/menagerie \
    MENAGERIE_RAY_WORKING_DIR=none
# (MENAGERIE_RAY_WORKING_DIR=none: the image already holds the code and the bots, so a
# tournament started in a pod ships nothing to the Ray workers)
USER ${UID}:${UID}
EXPOSE 50051 5000 6379 8265 10001
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["arena", "--help"]
