import { ApiProblem } from '../server/problem';
import type { Route } from '../server/route-types';
import { APPLICATION_TEMPLATES, ROLES } from './application-templates';

/**
 * `GET /roles`, `GET /application-templates` and `/application-templates/{id}` (docs/api.md, Roles and application
 * templates): static lists, for any valid key (the vendor documents no permission for them).
 */
export function catalogueRoutes(): Route[] {
  return [
    { method: 'GET', path: '/roles', handler: () => ({ status: 200, body: ROLES }) },
    { method: 'GET', path: '/application-templates', handler: () => ({ status: 200, body: APPLICATION_TEMPLATES }) },
    {
      method: 'GET',
      path: '/application-templates/:id',
      handler: (ctx) => {
        const template = APPLICATION_TEMPLATES.find((t) => t.id === ctx.params.id);
        if (!template) throw new ApiProblem(404, `No application template has the id ${ctx.params.id}; GET /application-templates lists them`);
        return { status: 200, body: template };
      },
    },
  ];
}
