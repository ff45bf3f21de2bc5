import { cpus, loadavg, release, totalmem, type } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  node: string;
  os: string;
  memoryGiB: number;
  /** 1-minute load average when the run started: the machine may be shared. */
  loadAverage: number;
  date: string;
}

/** Figures mean little without the machine: every report carries this. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    node: process.version,
    os: `${type()} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: Math.round(loadavg()[0] * 100) / 100,
    date: new Date().toISOString(),
  };
}
