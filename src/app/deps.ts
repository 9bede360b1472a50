import type { ConfigService } from '../config/config-service';
import type { Stores } from '../store';

/** What every service needs: the stores, the live config and a clock (injectable so tests can pin time). */
export interface Deps {
  stores: Stores;
  config: ConfigService;
  now(): number;
}
