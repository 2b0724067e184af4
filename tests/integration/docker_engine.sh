# docker_engine.sh - sourced by the docker shell tests: CLI and SOCK, skip(), and need_engine,
# which skips (or, with ASB_REQUIRE_DOCKER=1 as in CI, fails) when no engine answers.
CLI=${ASB_CLI:-$(dirname "$0")/../../build/agent-sandbox}
SOCK=${DOCKER_HOST:-unix:///var/run/docker.sock}
SOCK=${SOCK#unix://}

skip() {
    if [ "${ASB_REQUIRE_DOCKER:-}" = 1 ]; then
        echo "FAIL: docker engine required (ASB_REQUIRE_DOCKER=1) but: $*"
        exit 1
    fi
    echo "SKIP: $*"
    exit 0
}

need_engine() {
    if ! curl -fsS --max-time 2 --unix-socket "$SOCK" http://docker/_ping >/dev/null 2>&1; then
        skip "no docker engine answers at $SOCK (scripts/docker-setup.sh starts one)"
    fi
}

# 0 when the default image is there (`agent-sandbox image build` makes it).
have_image() {
    curl -fsS --max-time 2 --unix-socket "$SOCK" \
        "http://docker/images/agent-sandbox%2Fpython:latest/json" >/dev/null 2>&1
}

need_image() {
    have_image || skip "image agent-sandbox/python:latest missing (agent-sandbox image build)"
}
