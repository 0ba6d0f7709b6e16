/**
 * Where a box keeps its agent, for every runtime that installs it (the local runtime copies
 * these files in at each start; on Kubernetes, cloud-init writes them).
 */
export const AGENT_FILES = {
  program: '/usr/local/lib/exploit-grid/agent.cjs',
  environment: '/etc/exploit-grid/agent.env',
  /** The box's own secret, for root only (operator/src/agent/main.ts reads it). */
  token: '/etc/exploit-grid/agent.token',
  unit: '/etc/systemd/system/exploit-grid-agent.service',
};

export const AGENT_SERVICE = 'exploit-grid-agent.service';

export const AGENT_UNIT = `[Unit]
Description=Exploit Grid box agent (reports process starts to the arena)
After=exploit-grid-network.service systemd-journald.service
ConditionPathExists=${AGENT_FILES.program}

[Service]
EnvironmentFile=${AGENT_FILES.environment}
ExecStart=/usr/bin/node --max-old-space-size=48 ${AGENT_FILES.program}
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
`;

/** The agent's environment file: where it reports. */
export const agentEnvironment = (apiUrl: string) => `EG_AGENT_API_URL=${apiUrl}\n`;

/**
 * snoopy logs every execve of a dynamically linked program to the journal in the format the
 * agent parses (exec-hook.ts, SNOOPY_FORMAT: keep the two the same); images/box-debian carries the
 * same files.
 */
export const SNOOPY_INI = `; Exploit Grid: the box agent reads these lines from the journal.
[snoopy]
message_format = "eg1 pid=%{pid} ppid=%{ppid} uid=%{uid} euid=%{euid} cwd=%{cwd} cmd=%{cmdline}"
filter_chain = ""
output = devlog
error_logging = no
`;

/** The journal keeps every exec line (no rate limit) in memory, within a bound. */
export const JOURNALD_CONF = `# Exploit Grid: the box agent follows snoopy's lines here; none may be dropped.
[Journal]
RateLimitIntervalSec=0
RuntimeMaxUse=32M
`;
