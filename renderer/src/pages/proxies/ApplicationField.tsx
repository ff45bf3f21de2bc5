import { ApplicationSelect } from '../../components/ApplicationSelect';
import { FieldProblem, invalidProps, type FieldProblems } from '../../components/FieldProblem';
import { useApplicationsStore } from '../../state/applications-store';

/** A definition's linked application (a proxy's, a reactor's): public or private, or none, saying what none means. */
export function ApplicationField({ value, onChange, none, problems }: { value: string; onChange: (id: string) => void; none: string; problems: FieldProblems }) {
  const applications = useApplicationsStore((state) => state.value);
  const choices = (applications ?? []).filter((application) => application.type !== 'management');
  return (
    <div className="proxy-field">
      <ApplicationSelect label="Application" applications={choices} value={value} onChange={onChange} none={none} aria={invalidProps(problems, 'application.id')} />
      <FieldProblem problems={problems} path="application.id" />
    </div>
  );
}
