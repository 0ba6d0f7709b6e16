# Exploit Grid: the front door. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules --no-print-directory

NODE_MAJOR ?= 24
export NODE_MAJOR
# In CI (.ci/run sets CI and REQUIRE_BOX_RUNTIME) a skipped test fails the run: a green run must
# not hide the box, VPN and referee tests a host could not run.
# The reporter is mocha's spec reporter that also appends its counts to TEST_COUNTS_FILE (set by `make test`).
MOCHA_FLAGS := $(if $(CI),--forbid-pending,) --reporter $(CURDIR)/test/support/count-reporter.ts
# The test API server's version (hack/ensure-kube-testbin.sh): the chart is rendered for it.
KUBE_VERSION := 1.34.4

# Node.js from .tools/ (installed by hack/ensure-node.sh when the system one is older)
# comes first on PATH for every recipe.
TOOLS := $(CURDIR)/.tools
export PATH := $(TOOLS)/node/bin:$(CURDIR)/node_modules/.bin:$(PATH)

API_SOURCES := $(shell find api/src -name '*.ts' ! -name '*.test.ts' 2>/dev/null) api/tsconfig.json api/package.json
OPERATOR_SOURCES := $(shell find operator/src -name '*.ts' ! -name '*.test.ts' 2>/dev/null) operator/tsconfig.json
PORTAL_SOURCES := $(shell find portal/src portal/public portal/scripts -type f 2>/dev/null) portal/index.html portal/vite.config.ts portal/package.json

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage: make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Run

.PHONY: run
run: build box-deps ## Install what is missing, build, and start the platform on http://localhost:3000 (Ctrl-C stops).
	@echo "Starting Exploit Grid on http://localhost:$${PORT:-3000} (Ctrl-C stops everything)"
	@exec node api/dist/main.js

.PHONY: boxes-down
boxes-down: build ## Stop every box and VPN server of the local runtime (they outlive the API) and clean the host.
	@node api/dist/boxes-down.js

.PHONY: dev
dev: deps box-deps ## API in watch mode + Vite dev server on http://localhost:5173 (proxying /api and /socket.io).
	@exec node hack/dev.ts

##@ Build

.PHONY: toolchain
toolchain: ## Make sure Node.js 24 is available (installs it into .tools/ when needed).
	@hack/ensure-node.sh

.PHONY: deps
deps: toolchain node_modules/.package-lock.json ## Install npm dependencies from the lockfile.

# Reinstall only when the lockfile or a manifest changed. node-gyp builds native
# modules against the headers of the Node.js that runs them.
node_modules/.package-lock.json: package-lock.json package.json api/package.json portal/package.json operator/package.json | toolchain
	npm_config_nodedir="$$(dirname "$$(dirname "$$(command -v node)")")" npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: box-deps
box-deps: ## Install the Debian packages of the local box runtime (nspawn, debootstrap, OpenVPN, nftables) when root.
	@hack/ensure-box-deps.sh

.PHONY: build
build: deps api/dist/main.js operator/dist/main.js operator/dist/agent.cjs operator/dist/vpn-checker.cjs portal/dist/index.html ## Build the API, the operator, the box agent, the VPN servers' checker and the portal.

api/dist/main.js operator/dist/main.js &: $(API_SOURCES) $(OPERATOR_SOURCES) tsconfig.json tsconfig.base.json
	tsc -b api operator
	@touch api/dist/main.js operator/dist/main.js

# The box agent as one file for the boxes' own Node (Debian's nodejs 18).
operator/dist/agent.cjs: $(filter-out %.test.ts,$(wildcard operator/src/agent/*.ts)) hack/bundle-agent.ts node_modules/.package-lock.json
	node hack/bundle-agent.ts $@

# The VPN servers' service checker, for the OpenVPN image's Node (Debian's nodejs 18).
operator/dist/vpn-checker.cjs: $(filter-out %.test.ts,$(wildcard operator/src/vpnpool/*.ts operator/src/catalogue/*.ts)) hack/bundle-agent.ts node_modules/.package-lock.json
	node hack/bundle-agent.ts $@

portal/dist/index.html: $(PORTAL_SOURCES) $(API_SOURCES) node_modules/.package-lock.json
	npm run build --workspace @exploit-grid/portal

# KUBEVIRT_SPEC: a path or URL of KubeVirt's swagger.json (default: the pinned release's, upstream).
.PHONY: generate-crd-types
generate-crd-types: deps ## Regenerate the resources' TypeScript types (operator/src/generated/crds.ts) from crds/*.yaml.
	node hack/generate-crd-types.ts

.PHONY: generate-kubevirt
generate-kubevirt: deps ## Regenerate the operator's typed KubeVirt API (operator/src/generated/kubevirt.ts).
	node hack/generate-kubevirt-client.ts $(KUBEVIRT_SPEC)

##@ Test

.PHONY: test
test: ## Everything CI runs: lint, unit tests, operator tests on a real API server, end-to-end tests in Chromium, the API fuzzer.
	@counts="$$(mktemp)"; rest="$$(mktemp)"; trap 'rm -f "$$counts" "$$rest"' EXIT; start="$$(date +%s)"; status=0; \
	  $(MAKE) test-tools || status=$$?; \
	  if [[ $$status -eq 0 ]]; then \
	    echo "make test: the suites that use this host's boxes and processes in order; the rest beside them, printed after"; \
	    (TEST_COUNTS_FILE="$$counts" $(MAKE) -k lint test-portal test-operator test-e2e-portal test-api-fuzz \
	      >"$$rest" 2>&1) & rest_pid=$$!; \
	    TEST_COUNTS_FILE="$$counts" $(MAKE) -k test-operator-unit test-api test-e2e-boxes || status=$$?; \
	    wait $$rest_pid || status=$$?; \
	    echo; echo "make test: lint, portal, operator on a real API server, portal end to end, API fuzzer:"; \
	    cat "$$rest"; \
	  fi; \
	  node hack/test-summary.ts "$$counts" "$$(( $$(date +%s) - start ))" "$$status"

# What every suite needs, made once before make test runs two lanes at a time (two installs at once would
# contend for apt's lock and the build's outputs).
.PHONY: test-tools
test-tools: build box-deps
	@hack/ensure-chromium.sh
	@hack/ensure-stripe-mock.sh >/dev/null
	@hack/ensure-kube-testbin.sh >/dev/null
	@hack/ensure-helm.sh >/dev/null
	@hack/ensure-schemathesis.sh >/dev/null

.PHONY: test-unit
test-unit: test-api test-operator-unit test-portal ## API and operator tests (mocha, real PostgreSQL, real boxes and VPN when root, the stripe SDK against stripe-mock), portal tests (vitest).

.PHONY: test-api
test-api: deps box-deps operator/dist/agent.cjs ## The API's tests (mocha, real PostgreSQL, real boxes and VPN when root, the stripe SDK against stripe-mock).
	@hack/ensure-stripe-mock.sh >/dev/null
	npm run test --workspace @exploit-grid/api -- $(MOCHA_FLAGS)

.PHONY: test-operator-unit
test-operator-unit: deps ## The operator's own tests (mocha).
	npm run test --workspace @exploit-grid/operator -- $(MOCHA_FLAGS)

.PHONY: test-portal
test-portal: deps ## The portal's tests (vitest).
	npm run test --workspace @exploit-grid/portal

.PHONY: test-operator
test-operator: build ## CRDs, operator, the API's kubernetes adapter and the chart against a real kube-apiserver + etcd (built once from Go modules by hack/ensure-kube-testbin.sh).
	@hack/ensure-kube-testbin.sh >/dev/null
	@hack/ensure-helm.sh >/dev/null
	TEST_SUITE=operator-kube mocha --config test/operator/.mocharc.json $(MOCHA_FLAGS)

.PHONY: chart-crds
chart-crds: ## Copy crds/*.yaml into the chart (charts/exploit-grid/crds/; helm follows no symlinks out of a chart).
	rm -f charts/exploit-grid/crds/*.yaml
	cp crds/*.yaml charts/exploit-grid/crds/

.PHONY: chart-lint
chart-lint: ## helm lint --strict and helm template of charts/exploit-grid, its CRDs equal to crds/ (helm built once by hack/ensure-helm.sh).
	@same=true; for f in crds/*.yaml; do cmp -s "$$f" "charts/exploit-grid/$$f" || same=false; done; \
	  [[ "$$(ls charts/exploit-grid/crds)" == "$$(cd crds && ls *.yaml)" ]] || same=false; \
	  $$same || { echo "chart-lint: the chart's CRDs differ from crds/: make chart-crds" >&2; exit 1; }
	@helm="$$(hack/ensure-helm.sh)"; \
	  for values in "" "--values hack/kind/values.yaml"; do \
	    "$$helm" lint --strict charts/exploit-grid $$values; \
	    "$$helm" template exploit-grid charts/exploit-grid --kube-version $(KUBE_VERSION) $$values >/dev/null; \
	  done; echo "chart-lint: linted and rendered with the default and the kind values"

.PHONY: kind-up
kind-up: ## A kind cluster with KubeVirt, Multus and the chart (needs docker, kind, kubectl, helm; CI runs it).
	hack/kind-up.sh

# The end-to-end suites that run boxes on this host's local runtime (make test runs them after the API's
# tests, the others beside them).
E2E_BOX_SPECS := $(patsubst %,test/e2e/%.test.ts,attacks boxes catalogue grid onboarding root staff)
E2E_PORTAL_SPECS := $(filter-out $(E2E_BOX_SPECS),$(sort $(wildcard test/e2e/*.test.ts)))

.PHONY: test-e2e
test-e2e: build ## End-to-end tests: the platform as `make run` starts it, driven in Chromium.
	@hack/ensure-chromium.sh
	@hack/ensure-box-deps.sh
	TEST_SUITE=e2e mocha --config test/e2e/.mocharc.json $(MOCHA_FLAGS) $(E2E_BOX_SPECS) $(E2E_PORTAL_SPECS)

.PHONY: test-e2e-boxes
test-e2e-boxes: build ## The end-to-end tests with boxes on this host (attacks, boxes, the Grid, onboarding, root, staff).
	@hack/ensure-chromium.sh
	@hack/ensure-box-deps.sh
	TEST_SUITE=e2e-boxes mocha --config test/e2e/.mocharc.json $(MOCHA_FLAGS) $(E2E_BOX_SPECS)

.PHONY: test-e2e-portal
test-e2e-portal: build ## The other end-to-end tests (accounts, chat, credits, page weight, phones, ...), no boxes.
	@boxes="$$(grep -l 'requireBoxHost\|startBoxPlatform\|localRuntimeEnv' $(E2E_PORTAL_SPECS) || true)"; \
	  [[ -z "$$boxes" ]] || { echo "test-e2e-portal: these run boxes, list them in E2E_BOX_SPECS: $$boxes" >&2; exit 1; }
	@hack/ensure-chromium.sh
	TEST_SUITE=e2e-portal hack/in-own-netns.sh mocha --config test/e2e/.mocharc.json $(MOCHA_FLAGS) $(E2E_PORTAL_SPECS)

# Schemathesis is pinned in hack/ensure-schemathesis.sh (a virtual environment of its own, made once in
# ~/.cache/exploit-grid); FUZZ_MAX_EXAMPLES and FUZZ_SEED (a number, or random) tune a run.
.PHONY: test-api-fuzz
test-api-fuzz: build ## Schemathesis over the OpenAPI document as a signed-in player (platform as make run starts it, no boxes); fails on any finding.
	@st="$$(hack/ensure-schemathesis.sh)"; node test/fuzz/api.ts "$$st"

.PHONY: lint
lint: deps ## Type-check everything, ESLint and Prettier; every path the docs name exists; no import cycle between API folders; generated types current.
	node hack/generate-crd-types.ts --check
	tsc -b
	tsc -p api/tsconfig.test.json
	tsc -p operator/tsconfig.test.json
	eslint --max-warnings 0 .
	prettier --check --log-level warn .
	node hack/check-doc-paths.ts
	node hack/check-import-cycles.ts

.PHONY: format
format: deps ## Rewrite files with Prettier and apply ESLint fixes.
	prettier --write --log-level warn .
	eslint --fix .

.PHONY: bench
bench: build ## The API's throughput vs raw node:http, then the Grid (bench-grid), the global chat (bench-chat), the leaderboard (bench-leaderboard), password checks (bench-passwords) and the pages' LCP (bench-pages); prints every figure.
	@hack/ensure-chromium.sh
	@status=0; for bench in run grid chat leaderboard passwords pages; do node test/bench/$$bench.ts || status=1; done; exit $$status

.PHONY: bench-pages
bench-pages: build ## Chromium's LCP of / and /dashboard (first visits, 10 Mbit/s, 40 ms) vs an empty page from the same server.
	@hack/ensure-chromium.sh
	node test/bench/pages.ts

.PHONY: bench-boxes
bench-boxes: build box-deps ## Box start time to ssh (vs a bare nspawn boot) and idle boxes per host; needs root.
	node test/bench/boxes.ts

.PHONY: bench-detection
bench-detection: build box-deps ## Attack detection latency (shell command to stored event) and the box agent's CPU; needs root.
	node test/bench/detection.ts

.PHONY: bench-vpn
bench-vpn: build box-deps ## The VPN ingress: tunnel throughput and latency vs straight to OpenVPN, /healthz p99 under players' bulk traffic; needs root.
	node test/bench/vpn.ts

.PHONY: bench-grid
bench-grid: build ## The Grid: 10,000 sockets (broadcast p95, heap per socket) vs bare Socket.IO; a matchmaking tick with 10,000 queued.
	node test/bench/grid.ts

.PHONY: bench-chat
bench-chat: build ## The global chat: 5,000 sockets, 200 messages/s, delivery p50/p95 vs bare Socket.IO with the same batches, and the kernel's floor.
	node test/bench/chat.ts

.PHONY: bench-leaderboard
bench-leaderboard: deps ## The leaderboard with 1,000,000 players: page query p50/p95 (rank, deep page, winRate, search) vs 15 rows by primary key.
	node test/bench/leaderboard.ts

.PHONY: bench-passwords
bench-passwords: deps ## The password strength check (zxcvbn) at sign-up and reset: dictionaries' load and heap, CPU time of one check, typed and worst inputs.
	node test/bench/passwords.ts

.PHONY: bench-operator
bench-operator: build ## The operator with 500 Boxes at once on the test API server: time to every VM, reconcile p95, memory.
	@hack/ensure-kube-testbin.sh >/dev/null
	node test/bench/operator.ts

##@ Staff

# ARGS: the command line, e.g. ARGS='ban alice --reason "flooding the chat"' (make staff ARGS=--help).
.PHONY: staff
staff: build ## The staff CLI (ban, unban, log, gifts, reports, contact, jobs, applications; ARGS=--help lists them) on this machine's platform: make staff ARGS='ban <handle|email> --reason ...'.
	@node api/dist/staff.js $(ARGS)

##@ Clean

.PHONY: clean
clean: ## Remove build output (keeps .data/ and .tools/).
	rm -rf api/dist operator/dist portal/dist portal/dist-maps portal/dist-ssr portal/node_modules/.tsc

.PHONY: clean-data
clean-data: ## Delete local platform data (.data/: database, mail, boxes, box images). Asks first.
	@read -r -p "Delete .data/ (database, boxes and everything else)? [y/N] " answer; [[ "$$answer" == y ]] || exit 0; \
	  if [[ -d .data/boxes && -f api/dist/boxes-down.js ]]; then node api/dist/boxes-down.js --purge; fi; rm -rf .data
