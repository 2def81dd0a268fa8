"""The parameters `run-deployment` checks are each flow's own: names and defaults as the flow's
signature has them, so the check can neither refuse what a flow takes nor let through what it
would not."""

from __future__ import annotations

import inspect

from thoughtforge.actions.run_parameters import FLOW_PARAMETERS
from thoughtforge.flows.pipeline import pipeline_flow
from thoughtforge.flows.polish import polish_flow
from thoughtforge.flows.repolish import repolish_flow


def test_each_flows_parameters_are_its_signatures() -> None:
    flows = {flow.name: flow for flow in (pipeline_flow, polish_flow, repolish_flow)}
    assert set(flows) == set(FLOW_PARAMETERS)
    for name, model in FLOW_PARAMETERS.items():
        signature = inspect.signature(flows[name].fn).parameters
        assert list(model.model_fields) == list(signature), name
        for field, parameter in signature.items():
            info = model.model_fields[field]
            if parameter.default is inspect.Parameter.empty:
                assert info.is_required(), (name, field)
            else:
                assert info.default == parameter.default, (name, field)
